import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

const LOOPBACK_HOSTS = new Set(['::1', 'localhost', '[::1]']);

/** Loopback names and literals only: `127.x.evil.example` is a DNS name, not an address, and is not loopback. */
export const isLoopbackHost = (host: string): boolean => {
  const name = host.toLowerCase();
  return LOOPBACK_HOSTS.has(name) || (isIP(name) === 4 && name.startsWith('127.')) || name.endsWith('.localhost');
};

/** A client address on this machine: 127.0.0.0/8 or ::1, also as an IPv4-mapped IPv6 address (::ffff:127.0.0.1). */
export const isLoopbackAddress = (address: string): boolean => {
  if (!ipaddr.isValid(address)) return false;
  const ip = ipaddr.process(address); // an IPv4-mapped address as the IPv4 one
  return ip.range() === 'loopback';
};
