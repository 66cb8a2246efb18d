/** What settings accept: each parser answers the value, or undefined for text it does not allow. */
import ipaddr from 'ipaddr.js';

export const oneOf =
  <const V extends readonly string[]>(values: V) =>
  (text: string): V[number] | undefined =>
    values.includes(text) ? text : undefined;

export const wholeNumber =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (text: string) => {
    const value = Number(text);
    return text.trim() !== '' && Number.isInteger(value) && value >= min && value <= max ? value : undefined;
  };

const SWITCH = new Map([
  ['on', true],
  ['off', false],
  ['true', true],
  ['false', false],
  ['1', true],
  ['0', false],
]);
export const onOrOff = (text: string): boolean | undefined => SWITCH.get(text.toLowerCase());

const commaList = (text: string) => text.split(',').map((part) => part.trim());

export const seconds = (text: string): number[] | undefined => {
  const delays = commaList(text).map((part) => (part === '' ? NaN : Number(part)));
  return delays.every((d) => Number.isFinite(d) && d >= 0) ? delays : undefined;
};

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/;
export const hostNames = (text: string): string[] | undefined => {
  const hosts = commaList(text.toLowerCase()).filter((h) => h !== '');
  return hosts.length > 0 && hosts.every((h) => HOST_NAME.test(h)) ? hosts : undefined;
};

export const absoluteUrl = (text: string): URL | undefined => {
  try {
    const url = new URL(text.endsWith('/') ? text : `${text}/`);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
};

/** Whom X-Forwarded-For is taken from: no one, any peer, or these addresses and ranges (fastify's trustProxy). */
export type ProxyTrust = boolean | string[];

export const proxyTrust = (text: string): ProxyTrust | undefined => {
  const on = onOrOff(text);
  if (on !== undefined) return on;
  const peers = commaList(text).filter((p) => p !== '');
  return peers.length > 0 && peers.every((p) => ipaddr.isValid(p) || ipaddr.isValidCIDR(p)) ? peers : undefined;
};
