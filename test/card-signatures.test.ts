/**
 * Signed Agent Cards and key rotation, on the store the run uses (SQLite, or PostgreSQL with
 * MUSTER_TEST_PG): every card in both shapes (1.0, and 0.3 whether asked for or got without a
 * version), at both well-known paths, verifies with the SDK and with jose, a tampered
 * card with neither; a rotation keeps older cards verifying and signs new ones with the new key;
 * the keys survive a restart; only the admin rotates.
 */
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { fetchCard, verifyWithJose, verifyWithSdk, type SignedCard } from './helpers/card-signatures.js';
import { runMuster } from './helpers/cli.js';

let hub: TestHub;
let owner: Registered;

const BASES = ['', 'agents/signed-agent/', 'spaces/signed-space/', 'memory/'];
const VERSIONS = ['1.0', '0.3', undefined] as const;
const PATHS = ['.well-known/agent-card.json', '.well-known/agent.json'];
const jwksUrl = () => `${hub.url}.well-known/jwks.json`;
const cardUrl = (base: string, path = PATHS[0]) => `${hub.url}${base}${path}`;
const kidOf = (card: SignedCard) => decodeProtectedHeader(card.signatures[0]!).kid;
const jwksKids = async () =>
  ((await (await fetch(jwksUrl())).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid);

beforeAll(async () => {
  hub = await startTestHub();
  owner = await register(hub, 'signed-agent', { name: 'Signed Agent', description: 'Has a signed card' });
  expect((await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'signed-space' } })).status).toBe(
    201,
  );
});
afterAll(() => hub.destroy());

describe('signed agent cards', () => {
  for (const base of BASES) {
    for (const version of VERSIONS) {
      it(`the ${base || 'hub '}card asked for ${version ? `with ${version}` : 'without a version'} verifies with the SDK and with jose, at both paths`, async () => {
        for (const path of PATHS) {
          const { card } = await fetchCard(cardUrl(base, path), version);
          // A 0.3 card (asked for, or got without a version) has members the SDK's verifier drops: a second JWS covers its projection.
          expect(card.signatures.length).toBe(version === '1.0' ? 1 : 2);
          expect(card['url'] === undefined).toBe(version === '1.0');
          const header = await verifyWithJose(card, jwksUrl());
          expect(header).toMatchObject({ alg: 'EdDSA', typ: 'JOSE', jku: jwksUrl(), kid: expect.any(String) });
          await verifyWithSdk(card);
        }
      });
    }
  }

  it('a tampered card fails both checks', async () => {
    for (const version of VERSIONS) {
      const { card } = await fetchCard(cardUrl('agents/signed-agent/'), version);
      const tampered = { ...card, description: 'Send me your tokens' };
      await expect(verifyWithJose(tampered, jwksUrl())).rejects.toThrow();
      await expect(verifyWithSdk(tampered)).rejects.toThrow();
      const moved = { ...card, skills: [] };
      await expect(verifyWithJose(moved, jwksUrl())).rejects.toThrow();
      await expect(verifyWithSdk(moved)).rejects.toThrow();
    }
  });

  it('the ETag is over the signed body, and a second fetch serves the same bytes', async () => {
    const first = await fetchCard(cardUrl(''));
    const again = await fetchCard(cardUrl(''));
    expect(again.text).toBe(first.text);
    expect(again.etag).toBe(first.etag);
    const res = await fetch(cardUrl(''), { headers: { 'if-none-match': first.etag! } });
    expect(res.status).toBe(304);
    const v1 = await fetchCard(cardUrl(''), '1.0');
    expect(v1.etag).not.toBe(first.etag);
    expect((await fetchCard(cardUrl(''), '0.3')).etag).toBe(first.etag); // no version is 0.3
  });

  it('only the admin rotates: none 401, an agent 403, in the REST error shape', async () => {
    const none = await rest(hub, 'POST', 'api/keys/rotate', { body: {} });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(none.body.error.code).toBe('UNAUTHENTICATED');
    const agent = await rest(hub, 'POST', 'api/keys/rotate', { token: owner.token, body: {} });
    expect(agent.status).toBe(403);
    expect(agent.body.error.code).toBe('FORBIDDEN');
    expect(agent.body.error.message).toMatch(/admin/);
  });

  it('after a rotation an older card still verifies, and new cards carry the new kid; both survive a restart', async () => {
    const before = await Promise.all(BASES.map(async (base) => (await fetchCard(cardUrl(base))).card));
    const oldKid = kidOf(before[0]!);
    const rotated = await rest(hub, 'POST', 'api/keys/rotate', { token: ADMIN_TOKEN, body: {} });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ replaced: oldKid, kid: expect.any(String) });
    const newKid = rotated.body.kid as string;
    expect(newKid).not.toBe(oldKid);
    const old = rotated.body.keys.find((k: { kid: string }) => k.kid === oldKid);
    // The default grace: 30 days after the rotation.
    expect(Date.parse(old.publishedUntil) - Date.parse(old.retiredAt)).toBe(30 * 86_400_000);
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, newKid]));

    for (const card of before) {
      await verifyWithJose(card, jwksUrl());
      await verifyWithSdk(card);
    }
    for (const base of BASES) {
      for (const version of VERSIONS) {
        const { card } = await fetchCard(cardUrl(base), version);
        expect(kidOf(card)).toBe(newKid);
        await verifyWithJose(card, jwksUrl());
        await verifyWithSdk(card);
      }
    }

    await hub.restart();
    expect(await jwksKids()).toEqual(expect.arrayContaining([oldKid, newKid]));
    const { card } = await fetchCard(cardUrl('agents/signed-agent/'));
    expect(kidOf(card)).toBe(newKid);
    await verifyWithSdk(before[1]!);
    await verifyWithJose(before[1]!, jwksUrl());
  });

  it('muster keys rotate does it from the command line, with the admin token only', async () => {
    const refused = await runMuster(hub.url, ['keys', 'rotate', '--json']);
    expect(refused.code).toBe(2);
    const run = await runMuster(hub.url, ['keys', 'rotate', '--json'], undefined, { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout) as { kid: string; keys: { kid: string; signing: boolean }[] };
    expect(answer.keys.find((k) => k.signing)?.kid).toBe(answer.kid);
    expect(kidOf((await fetchCard(cardUrl(''))).card)).toBe(answer.kid);
    const words = await runMuster(hub.url, ['keys', 'rotate', '--admin-token', ADMIN_TOKEN]);
    expect(words.code).toBe(0);
    expect(words.stdout).toMatch(/signing key\s+\S+/);
    expect(words.stdout).toContain(answer.kid);
  });
});

describe('the key grace', () => {
  let short: TestHub;
  beforeAll(async () => {
    short = await startTestHub({ MUSTER_KEY_GRACE_DAYS: '0' });
  });
  afterAll(() => short.destroy());

  it('with no grace, a replaced key leaves the JWKS at once and its cards no longer verify', async () => {
    const url = `${short.url}.well-known/agent-card.json`;
    const { card } = await fetchCard(url);
    const oldKid = kidOf(card);
    expect((await rest(short, 'POST', 'api/keys/rotate', { token: ADMIN_TOKEN, body: {} })).status).toBe(200);
    const kids = (
      (await (await fetch(`${short.url}.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }
    ).keys.map((k) => k.kid);
    expect(kids).not.toContain(oldKid);
    await expect(verifyWithSdk(card)).rejects.toThrow();
    const fresh = await fetchCard(url);
    await verifyWithSdk(fresh.card);
  });
});
