/**
 * The A2A version a request asks for: the `A2A-Version` header (gRPC: `a2a-version` metadata),
 * else the `?A2A-Version=` query parameter (A2A 1.0 §3.6.1 allows either). An absent or empty
 * value means 0.3 (§3.6.2); any version but 0.3 and 1.0 is refused with VersionNotSupported.
 */
import type { HttpRequest } from '../http/exchange.js';
import { HubError } from '../../errors/hub-error.js';

/** Versions this hub speaks, as Major.Minor. */
const SUPPORTED_VERSIONS = new Set(['0.3', '1.0']);

/** `1.0.0` → `1.0`: versions are negotiated as Major.Minor (a patch part is tolerated). */
const majorMinor = (version: string): string => version.trim().split('.').slice(0, 2).join('.');

export function requestedVersion(request: HttpRequest): string | undefined {
  const header = request.headers['a2a-version'];
  if (typeof header === 'string' && header !== '') return header;
  const query = (request.query as Record<string, unknown> | undefined)?.['A2A-Version'];
  return typeof query === 'string' && query !== '' ? query : undefined;
}

/** Refuses a version this hub does not speak; an absent one is 0.3, which it does. */
export function checkVersion(version: string | undefined): void {
  // The exact spellings first: every call carries one, and they need no parsing.
  if (
    version === undefined ||
    version === '' ||
    SUPPORTED_VERSIONS.has(version) ||
    SUPPORTED_VERSIONS.has(majorMinor(version))
  )
    return;
  throw new HubError(
    'VERSION_NOT_SUPPORTED',
    `A2A-Version '${version}' is not supported; this hub speaks 1.0 and 0.3`,
    {
      hint: 'Send A2A-Version: 1.0 (or 0.3 with the 0.3 method names), as a header or as ?A2A-Version=',
    },
  );
}

/** The card shape a request gets: 1.0 when it asks for 1.0, else 0.3 (an absent version means 0.3). */
export function cardVersionOf(request: HttpRequest): '1.0' | '0.3' {
  const version = requestedVersion(request);
  checkVersion(version);
  return version !== undefined && majorMinor(version) === '1.0' ? '1.0' : '0.3';
}
