/**
 * The interface the hub speaks to an agent's own endpoint, picked from the endpoint's Agent Card
 * in whichever version the card is written: a 1.0 card lists `supportedInterfaces`; a 0.3 card
 * names one `url` with its `preferredTransport` and maybe `additionalInterfaces`.
 */
import type { EndpointProtocol, FollowMeans, SpokenInterface } from '../../store/store.js';

export type EndpointInterface = SpokenInterface;

interface Candidate {
  url: unknown;
  binding: unknown;
  version: unknown;
}

/** Best first: 1.0 JSON-RPC, 1.0 HTTP+JSON, 0.3 JSON-RPC (a 0.3 server's HTTP+JSON has other paths and shapes). */
const PREFERENCE: readonly EndpointProtocol[] = ['JSONRPC/1.0', 'HTTP+JSON/1.0', 'JSONRPC/0.3'];

const protocolOf = (c: Candidate): EndpointProtocol | undefined => {
  const version = String(c.version ?? '');
  const major = version.startsWith('1.') || version === '1' ? '1.0' : version.startsWith('0.3') ? '0.3' : undefined;
  const named = `${String(c.binding ?? '').toUpperCase()}/${major}` as EndpointProtocol;
  return PREFERENCE.includes(named) ? named : undefined;
};

function candidates(card: Record<string, unknown>): Candidate[] {
  const listed = Array.isArray(card['supportedInterfaces'])
    ? (card['supportedInterfaces'] as Record<string, unknown>[])
    : [];
  const found: Candidate[] = listed.map((i) => ({
    url: i?.['url'],
    binding: i?.['protocolBinding'],
    version: i?.['protocolVersion'],
  }));
  // A 0.3 card: its own url speaks its preferred transport, its additional interfaces theirs, all in its protocolVersion.
  const version = card['protocolVersion'] ?? '0.3';
  if (typeof card['url'] === 'string')
    found.push({ url: card['url'], binding: card['preferredTransport'] ?? 'JSONRPC', version });
  const more = Array.isArray(card['additionalInterfaces'])
    ? (card['additionalInterfaces'] as Record<string, unknown>[])
    : [];
  for (const i of more) found.push({ url: i?.['url'], binding: i?.['transport'], version });
  return found;
}

/** The interface to speak, its URL resolved against the card's own; undefined when the card names none the hub speaks. */
export function interfaceOf(card: unknown, cardUrl: string): EndpointInterface | undefined {
  if (typeof card !== 'object' || card === null) return undefined;
  const usable = candidates(card as Record<string, unknown>).flatMap(
    (c): { url: string; protocol: EndpointProtocol }[] => {
      const protocol = protocolOf(c);
      const url = typeof c.url === 'string' && c.url !== '' ? resolved(c.url, cardUrl) : undefined;
      return protocol && url ? [{ url, protocol }] : [];
    },
  );
  usable.sort((a, b) => PREFERENCE.indexOf(a.protocol) - PREFERENCE.indexOf(b.protocol));
  return usable[0] && Object.assign(usable[0], { follow: followOf((card as Record<string, unknown>)['capabilities']) });
}

/** The best means the card offers to follow a task: its stream, else push notifications, else reading it. */
function followOf(capabilities: unknown): FollowMeans {
  const offered =
    typeof capabilities === 'object' && capabilities !== null ? (capabilities as Record<string, unknown>) : {};
  return offered['streaming'] === true ? 'streaming' : offered['pushNotifications'] === true ? 'push' : 'polling';
}

const resolved = (url: string, base: string): string | undefined => {
  try {
    return new URL(url, base).href;
  } catch {
    return undefined;
  }
};

/** The protocols the hub speaks, as a hint names them. */
export const SPOKEN = 'an A2A 1.0 JSONRPC or HTTP+JSON interface, or an A2A 0.3 JSONRPC url';
