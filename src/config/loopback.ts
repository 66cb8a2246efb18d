import { isIP } from 'node:net';

const LOOPBACK_HOSTS = new Set(['::1', 'localhost', '[::1]']);

/** Loopback names and literals only: `127.x.evil.example` is a DNS name, not an address, and is not loopback. */
export const isLoopbackHost = (host: string): boolean => {
  const name = host.toLowerCase();
  return LOOPBACK_HOSTS.has(name) || (isIP(name) === 4 && name.startsWith('127.')) || name.endsWith('.localhost');
};
