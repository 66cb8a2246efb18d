/**
 * The directory: directory.search at the hub's base answers an agent Message and stores nothing;
 * GET /api/agents?q=&skill=&tag= runs the same search, paged. On SQLite, or PostgreSQL with
 * MUSTER_TEST_PG.
 */
import { Message, SendMessageRequest } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchCard } from './helpers/card-signatures.js';
import { register, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { sdkClient } from './helpers/sdk.js';

let hub: TestHub;
let asker: Registered;

const skill = (id: string, name: string, tags?: string[]) => ({
  id,
  name,
  description: `${name}, as a service`,
  ...(tags ? { tags } : {}),
});
const search = (args: unknown) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ data: { skill: 'directory.search', args } }],
});
const taskCount = async () => Number((await hub.db.rows('SELECT count(*) AS n FROM tasks'))[0]!['n']);
const handles = (agents: { handle: string }[]) => agents.map((a) => a.handle);

beforeAll(async () => {
  hub = await startTestHub();
  // Registration order matters: within one score, results go in it.
  const profiles: [string, Record<string, unknown>][] = [
    [
      'dir-notes',
      {
        description: 'Keeps meeting notes; can translate them on request',
        skills: [skill('take-notes', 'Take notes')],
        tags: ['meetings'],
      },
    ],
    [
      'dir-translator',
      { name: 'Translator', skills: [skill('translate', 'Translate text', ['french'])], tags: ['language'] },
    ],
    [
      'dir-pdf',
      { description: 'Summaries', skills: [skill('summarize-pdf', 'Summarize PDFs')], tags: ['documents', 'french'] },
    ],
    ['dir-quiet', {}],
  ];
  for (const [handle, profile] of profiles) {
    const agent = await register(hub, handle);
    if (Object.keys(profile).length)
      expect((await rest(hub, 'PATCH', `api/agents/${handle}`, { token: agent.token, body: profile })).status).toBe(
        200,
      );
  }
  asker = await register(hub, 'dir-asker');
});
afterAll(() => hub?.destroy());

describe('directory.search at the hub base', () => {
  it('the hub card declares the skill', async () => {
    const { card } = await fetchCard(`${hub.url}.well-known/agent-card.json`);
    expect((card['skills'] as { id: string }[]).map((s) => s.id)).toContain('directory.search');
  });

  it('answers a Message through the SDK, best match first, and stores no task', async () => {
    const before = await taskCount();
    const sdk = await sdkClient(hub.url, asker.token);
    const answer = await sdk.sendMessage(SendMessageRequest.fromJSON({ message: search({ q: 'TRANSLAT' }) }));
    expect('status' in answer).toBe(false); // a Message, not a Task
    const message = Message.toJSON(answer as Message) as any;
    expect(message.role).toBe('ROLE_AGENT');
    expect(message.parts[0].text).toBe('2 agents on this hub match.');
    const { agents, hasMore } = message.parts[1].data;
    expect(hasMore).toBe(false);
    // The handle or name matches first; then a match in the description.
    expect(handles(agents)).toEqual(['dir-translator', 'dir-notes']);
    expect(agents[0]).toEqual({
      handle: 'dir-translator',
      agentId: expect.any(String),
      name: 'Translator',
      skills: [skill('translate', 'Translate text', ['french'])],
      tags: ['language'],
      inputModes: ['text/plain', 'application/json'], // the defaults: the agent declared none
      outputModes: ['text/plain', 'application/json'],
      createdAt: expect.any(String),
      a2a: `${hub.url}agents/dir-translator/`,
      card: `${hub.url}agents/dir-translator/.well-known/agent-card.json`,
    });
    expect(await taskCount()).toBe(before);
  });

  it('matches skill ids and tags exactly (a tag of the agent or of a skill), and combines filters', async () => {
    const found = async (args: unknown) => {
      const res = await rpc(hub.url, 'SendMessage', { message: search(args) }, { token: asker.token });
      expect(res.body.result.message, JSON.stringify(res.body)).toBeDefined();
      return handles(res.body.result.message.parts[1].data.agents);
    };
    expect(await found({ skill: 'translate' })).toEqual(['dir-translator']);
    expect(await found({ skill: 'Translate' })).toEqual([]);
    expect(await found({ tag: 'french' })).toEqual(['dir-translator', 'dir-pdf']);
    expect(await found({ tag: 'french', q: 'summar' })).toEqual(['dir-pdf']);
    expect(await found({ q: 'nobody-has-this' })).toEqual([]);
    expect(await found({})).toEqual(['dir-notes', 'dir-translator', 'dir-pdf', 'dir-quiet', 'dir-asker']);
  });

  it('answers a 0.3 message/send with a 0.3 message', async () => {
    const res = await rpc(
      hub.url,
      'message/send',
      {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'data', data: { skill: 'directory.search', args: { tag: 'meetings' } } }],
        },
      },
      { token: asker.token },
    );
    expect(res.body.result).toMatchObject({ kind: 'message', role: 'agent' });
    expect(handles(res.body.result.parts[1].data.agents)).toEqual(['dir-notes']);
  });

  it('refuses bad args naming the field, a stream, and no token', async () => {
    const bad = await rpc(
      hub.url,
      'SendMessage',
      { message: search({ tag: 'Not A Tag', colour: 1 }) },
      { token: asker.token },
    );
    expect(bad.body.error.code).toBe(-32602);
    const named = (bad.body.error.data as { fieldViolations?: { field: string }[] }[])
      .flatMap((d) => d.fieldViolations ?? [])
      .map((v) => v.field);
    expect(named).toEqual(
      expect.arrayContaining(['params.message.parts[0].data.args.tag', 'params.message.parts[0].data.args.colour']),
    );
    const streamed = await rpc(hub.url, 'SendStreamingMessage', { message: search({}) }, { token: asker.token });
    expect(streamed.body.error.message).toContain('answered with one message');
    expect((await rpc(hub.url, 'SendMessage', { message: search({}) })).status).toBe(401);
    expect((await rpc(hub.url, 'SendMessage', { message: search({}) }, { token: 'mst_revoked' })).status).toBe(401);
  });
});

describe('GET /api/agents?q=&skill=&tag=', () => {
  it('searches as the skill does, paged, and refuses a cursor of other filters', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await rest(hub, 'GET', `api/agents?q=dir-&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      seen.push(...handles(page.body.data));
      cursor = page.body.cursor;
    } while (cursor);
    // Every agent once, in the order of one page: ranked by the full-text index (all match in the handle).
    const whole = await rest(hub, 'GET', 'api/agents?q=dir-&limit=50');
    expect(seen).toEqual(handles(whole.body.data));
    expect([...seen].sort()).toEqual(['dir-asker', 'dir-notes', 'dir-pdf', 'dir-quiet', 'dir-translator']);

    const ranked = await rest(hub, 'GET', 'api/agents?q=translat&limit=1');
    expect(handles(ranked.body.data)).toEqual(['dir-translator']);
    const rest2 = await rest(hub, 'GET', `api/agents?q=translat&limit=1&cursor=${ranked.body.cursor}`);
    expect(handles(rest2.body.data)).toEqual(['dir-notes']);
    expect(rest2.body.hasMore).toBe(false);

    expect(handles((await rest(hub, 'GET', 'api/agents?tag=french&skill=summarize-pdf')).body.data)).toEqual([
      'dir-pdf',
    ]);
    const other = await rest(hub, 'GET', `api/agents?q=notes&cursor=${ranked.body.cursor}`);
    expect(other.status).toBe(400);
    expect(other.body.error.fields[0].field).toBe('cursor');
    const badTag = await rest(hub, 'GET', 'api/agents?tag=Not%20A%20Tag');
    expect(badTag.status).toBe(400);
    expect(badTag.body.error.fields[0].field).toBe('tag');
  });
});
