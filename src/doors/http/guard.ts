import type { HttpRequest } from './exchange.js';
import { isLoopbackHost } from '../../config/index.js';
import { HubError } from '../../errors/hub-error.js';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const hostName = (hostHeader: string): string => {
  try {
    return new URL(`http://${hostHeader}`).hostname;
  } catch {
    return '';
  }
};

/**
 * DNS-rebinding and cross-site protection: the Host must be a loopback name or the public
 * URL's host, and a write that carries an Origin must come from one of those origins.
 */
export function requestGuard(publicUrl: URL | undefined) {
  const allowedHost = (name: string) =>
    isLoopbackHost(name) || (publicUrl !== undefined && name === publicUrl.hostname);
  // Clients send the same few Host values over and over: remember the ones already allowed.
  const allowed = new Set<string>();
  const hostAllowed = (host: string): boolean => {
    if (allowed.has(host)) return true;
    if (!allowedHost(hostName(host))) return false;
    if (allowed.size < 64) allowed.add(host);
    return true;
  };
  return (request: HttpRequest): void => {
    const host = request.headers.host;
    // HTTP/1.1 makes Host a must; node's own check would answer with an empty body of its own (app.ts turns it off).
    if (host === undefined)
      throw new HubError('INVALID_REQUEST', 'The request has no Host header', {
        hint: `Send Host: ${publicUrl ? publicUrl.host : "the hub's host and port, such as 127.0.0.1:7420"}`,
      });
    if (!hostAllowed(host)) {
      throw new HubError('FORBIDDEN', `Requests for host '${host}' are refused`, {
        hint: publicUrl
          ? `Use ${publicUrl.origin}`
          : 'Use http://127.0.0.1 or http://localhost; a public host needs --public-url',
      });
    }
    if (!WRITE_METHODS.has(request.method) || !foreignOrigin(request, publicUrl)) return;
    throw new HubError('FORBIDDEN', `Writes from origin '${request.headers.origin}' are refused`, {
      hint: 'Call the hub from a server-side client, not from a web page of another site',
    });
  };
}

/** True when the request carries an Origin that is neither its own Host's nor the public URL's (a web page of another site). */
export function foreignOrigin(request: HttpRequest, publicUrl: URL | undefined): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  let originHost = '';
  try {
    originHost = new URL(origin).host;
  } catch {
    /* an unparseable Origin is foreign */
  }
  return originHost !== request.headers.host && !(publicUrl !== undefined && origin === publicUrl.origin);
}
