import ipaddr from 'ipaddr.js';

/** Only 2000::/3 is allocated as global unicast; other IPv6 space that ipaddr.js calls 'unicast' is not public. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** Readable names for ipaddr.js ranges, for refusal messages. */
const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  linkLocal: 'a link-local',
  loopback: 'a loopback',
  carrierGradeNat: 'a carrier-grade NAT (100.64.0.0/10)',
  private: 'a private (RFC 1918)',
  uniqueLocal: 'a unique-local (fc00::/7)',
  reserved: 'a reserved',
};

export function isIpAddress(host: string): boolean {
  return ipaddr.isValid(host);
}

/** A host name without the root's trailing dot: `localhost.` and `localhost` name the same host. */
export const withoutRootDot = (host: string): string => (host.endsWith('.') ? host.slice(0, -1) : host);

/**
 * Whether a host name is loopback by its name alone: `localhost` and every name under it (RFC
 * 6761 §6.3), with or without the trailing dot, whatever a resolver answers for it.
 */
export function isLoopbackName(host: string): boolean {
  const name = withoutRootDot(host).toLowerCase();
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Why an IP address is not a public Internet address, as a phrase ("a loopback address"), or
 * undefined when it is public. An allowlist: anything ipaddr.js does not call plain 'unicast'
 * is refused, so new special ranges are refused too. IPv4-mapped IPv6 (::ffff:a.b.c.d) is
 * judged as the IPv4 address it carries; other IPv6 forms that embed IPv4 (NAT64, 6to4,
 * Teredo, IPv4-compatible ::a.b.c.d) are refused outright.
 */
export function nonPublicReason(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'not a valid IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  const range: string = ip.range();
  if (range !== 'unicast') return `${RANGE_NAMES[range] ?? `a special-purpose (${range})`} address`;
  if (ip.kind() === 'ipv6' && !ip.match(IPV6_GLOBAL_UNICAST))
    return 'an IPv6 address outside global unicast space (2000::/3)';
  return undefined;
}
