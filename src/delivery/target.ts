import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isIpAddress, isLoopbackName, nonPublicReason, withoutRootDot } from './address-policy.js';
import { TargetRefused } from './errors.js';

/** What the operator allows Muster to reach. `allowPrivate` (MUSTER_ALLOW_PRIVATE_TARGETS) is for local development and tests. */
export interface TargetPolicy {
  allowPrivate: boolean;
}

/** The host as DNS and sockets want it: without the brackets URL puts around IPv6 literals. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The checks that need no DNS: a parseable http(s) URL, https unless private targets are
 * allowed, no credentials in it, an IP-literal host that is public, and no localhost name. IP
 * literals are judged here because sockets connect to them without a lookup, so the connect-time
 * guard never sees them (URL parsing already reads `127.0.0.1.` as `127.0.0.1`).
 */
export function parseTarget(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('invalid-url', `"${raw}" is not an absolute URL; send a full https:// URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowPrivate)) {
    const allowed = policy.allowPrivate ? 'https:// or http://' : 'https://';
    throw new TargetRefused('scheme', `${url.protocol}// URLs are not allowed; send an ${allowed} URL`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new TargetRefused(
      'credentials',
      'URLs with user:password@ credentials are not allowed; remove them and put credentials in the authentication field instead',
    );
  }
  const host = hostOf(url);
  if (policy.allowPrivate) return url;
  if (isIpAddress(host)) assertPublic(host, [host]);
  if (isLoopbackName(host))
    throw new TargetRefused(
      'private-address',
      `${host} names this machine (loopback); Muster only sends to public addresses. Send a URL whose host resolves only to public addresses`,
    );
  return url;
}

/**
 * Checks a URL before Muster stores it (a push config, an agent endpoint): the checks of
 * parseTarget, then every address its host resolves to now must be public. A host that does not
 * resolve now is taken (its record may not exist yet): nothing private can be reached through
 * it, since safeSend checks every address again at connect time, as DNS can change meanwhile.
 */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<URL> {
  const url = parseTarget(raw, policy);
  const host = hostOf(url);
  if (isIpAddress(host) || policy.allowPrivate) return url;
  // `name.` and `name` are one host, but resolvers may answer only one of them: both are checked.
  const names = [...new Set([host, withoutRootDot(host)])];
  const addresses = await Promise.all(names.map((name) => resolveAll(name).catch(() => [])));
  assertPublic(host, addresses.flat());
  return url;
}

/**
 * A socket `lookup` that refuses the connection when any address of the host is not public.
 * The socket then connects only to the addresses checked here, so a DNS answer that changes
 * after checkTarget (DNS rebinding) cannot steer it to a private address.
 */
export function guardedLookup(policy: TargetPolicy): LookupFunction | undefined {
  if (policy.allowPrivate) return undefined;
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      try {
        assertPublic(
          hostname,
          addresses.map((a) => a.address),
        );
      } catch (refusal) {
        return callback(refusal as NodeJS.ErrnoException, []);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined)
        return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** Every address of a host. Looked up through the `dns` object (not a destructured import) so one lookup path serves both checks. */
function resolveAll(host: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    dns.lookup(host, { all: true }, (error, addresses) => {
      if (error) reject(error);
      else if (addresses.length === 0)
        reject(Object.assign(new Error(`No address for ${host}`), { code: 'ENOTFOUND' }));
      else resolve(addresses.map((a) => a.address));
    });
  });
}

function assertPublic(host: string, addresses: string[]): void {
  for (const address of addresses) {
    const reason = nonPublicReason(address);
    if (reason === undefined) continue;
    const via = address === host ? `${address} is` : `${host} resolves to ${address}, which is`;
    throw new TargetRefused(
      'private-address',
      `${via} ${reason}; Muster only sends to public addresses. Send a URL whose host resolves only to public addresses`,
    );
  }
}
