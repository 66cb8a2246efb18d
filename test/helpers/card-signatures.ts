/**
 * Two independent checks of a signed Agent Card: the SDK's verifyAgentCardSignature, and jose on
 * its own (the card's RFC 8785 form without `signatures`, the key from the JWKS the header's
 * `jku` names). Both fetch the hub's JWKS afresh, as a verifier meeting the card would.
 */
import { verifyAgentCardSignature, type AgentCard } from '@a2a-js/sdk';
import canonicalize from 'canonicalize';
import { base64url, createLocalJWKSet, decodeProtectedHeader, flattenedVerify, type JWK } from 'jose';

export interface CardSignature {
  protected: string;
  signature: string;
  header?: Record<string, unknown>;
}

export type SignedCard = Record<string, unknown> & { signatures: CardSignature[] };

async function jwksAt(url: string): Promise<{ keys: JWK[] }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  return (await res.json()) as { keys: JWK[] };
}

/** The SDK's check; resolves when a signature verifies, rejects otherwise. */
export async function verifyWithSdk(card: SignedCard): Promise<void> {
  const verify = verifyAgentCardSignature(async (kid, jku) => {
    const key = (await jwksAt(jku!)).keys.find((k) => k.kid === kid);
    if (!key) throw new Error(`no key ${kid} at ${jku}`);
    return key;
  });
  // The SDK says on console.debug why each signature it could not use failed: a 0.3 card's first
  // one always (it covers members the SDK drops), so the test output is kept clear of it.
  const debug = console.debug;
  console.debug = () => {};
  try {
    await verify(card as unknown as AgentCard);
  } finally {
    console.debug = debug;
  }
}

/** jose alone, on the first signature (the one over the whole card); resolves to its protected header. */
export async function verifyWithJose(card: SignedCard, expectedJku: string): Promise<Record<string, unknown>> {
  const { signatures, ...unsigned } = card;
  const [first] = signatures;
  if (!first) throw new Error('no signatures');
  const header = decodeProtectedHeader(first) as Record<string, unknown>;
  if (header['jku'] !== expectedJku) throw new Error(`jku is ${String(header['jku'])}, not ${expectedJku}`);
  const payload = base64url.encode(new TextEncoder().encode(canonicalize(unsigned)!));
  await flattenedVerify(
    { protected: first.protected, signature: first.signature, payload },
    createLocalJWKSet(await jwksAt(expectedJku)),
    { algorithms: ['EdDSA'] },
  );
  return header;
}

export async function fetchCard(
  url: string,
  version?: '0.3' | '1.0',
): Promise<{ card: SignedCard; text: string; etag: string | null }> {
  const res = await fetch(url, { headers: version ? { 'a2a-version': version } : {} });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status}`);
  const text = await res.text();
  return { card: JSON.parse(text) as SignedCard, text, etag: res.headers.get('etag') };
}
