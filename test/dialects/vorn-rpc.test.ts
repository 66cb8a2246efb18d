/**
 * Vorn's JSON-RPC endpoints, as its OpenAPI document describes them, over raw HTTP: an agent's
 * (`POST /v1/a2a/{handle}`: message/send, tasks/get, tasks/cancel in 0.3 shapes, the part
 * limits, `vorn.job_id`, the codes -32001, -32002, -32004, -32010, -32011, -32029 and the 404 of
 * an unknown agent), the platform's stateless directory (`POST /v1/a2a`) and an agent's signed
 * card (`GET /v1/agents/{handle}/card`). On SQLite, and on two PostgreSQL nodes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../helpers/database.js';
import { awayFromWindowEdge, rest, rpc } from '../helpers/hub.js';
import { fetchCard, verifyWithJose, verifyWithSdk } from '../helpers/card-signatures.js';
import { agent, task, vornMessage, vornNodes, vornSend, type Agent } from './vorn-fixture.js';

const JOB = '2f1b6c1e-8d4a-4c55-9a37-0c1d2e3f4a5b';

describe(`Vorn JSON-RPC at /v1/a2a (${testDialect})`, () => {
  const { node } = vornNodes('dialect_vorn_rpc');
  let ann: Agent, ben: Agent, cat: Agent;

  beforeAll(async () => {
    ann = await agent(node(0), 'ann');
    ben = await agent(node(1), 'ben', undefined, { name: 'Ben Writes' });
    cat = await agent(node(0), 'cat');
  });

  it('message/send opens a direct task in the target inbox, in 0.3 shape, keeping vorn.job_id', async () => {
    const message = vornMessage([{ kind: 'text', text: 'Review my draft' }], { metadata: { 'vorn.job_id': JOB } });
    const sent = await vornSend(node(0), 'ben', ann.token, message);
    expect(sent.status).toBe(200);
    const t = sent.body.result;
    expect(t).toMatchObject({ kind: 'task', status: { state: 'submitted' }, metadata: { 'vorn.job_id': JOB } });
    expect(t.history[0]).toMatchObject({
      kind: 'message',
      role: 'user',
      parts: [{ kind: 'text', text: 'Review my draft' }],
    });

    // The target reads it through the other node; historyLength trims the history, not the job.
    const got = await rpc(
      `${node(1).url}v1/a2a/ben`,
      'tasks/get',
      { id: t.id, historyLength: 0 },
      { token: ben.token },
    );
    expect(got.body.result).toMatchObject({ id: t.id, kind: 'task', metadata: { 'vorn.job_id': JOB } });
    expect(got.body.result.history).toBeUndefined();
    const full = await rpc(`${node(1).url}v1/a2a/ben`, 'tasks/get', { id: t.id }, { token: ann.token });
    expect(full.body.result.history).toHaveLength(1);

    // A file goes by its uri; the task names it as sent.
    const file = vornMessage([
      { kind: 'file', file: { uri: 'https://files.example/a.pdf', name: 'a.pdf', mimeType: 'text/plain' } },
    ]);
    const withFile = await vornSend(node(1), 'ben', ann.token, file);
    expect(withFile.body.result.history[0].parts[0]).toEqual({
      kind: 'file',
      file: { uri: 'https://files.example/a.pdf', name: 'a.pdf', mimeType: 'text/plain' },
    });
  });

  it('holds the limits: 10 parts, 20,000 characters of text, 64 KB a data part, no inline bytes, a UUID job id', async () => {
    const refused = async (parts: unknown[], field: RegExp, metadata?: object) => {
      const res = await vornSend(node(0), 'ben', ann.token, vornMessage(parts, metadata ? { metadata } : {}));
      expect(res.status).toBe(200);
      expect(res.body.error.code).toBe(-32602);
      expect(JSON.stringify(res.body.error.data.fields)).toMatch(field);
    };
    const text = (t: string) => ({ kind: 'text', text: t });
    await refused(
      Array.from({ length: 11 }, () => text('x')),
      /message\.parts/,
    );
    await refused([text('x'.repeat(10_000)), text('y'.repeat(10_001))], /20000/);
    await refused([{ kind: 'data', data: { blob: 'z'.repeat(64 * 1024) } }], /message\.parts\[0\]\.data/);
    await refused([{ kind: 'file', file: { bytes: 'aGk=', name: 'hi.txt' } }], /message\.parts\[0\]\.file\.bytes/);
    await refused([text('x')], /vorn\.job_id/, { 'vorn.job_id': 'job-7' });
    // Exactly at the limits is taken.
    const ok = await vornSend(node(1), 'ben', ann.token, vornMessage([text('x'.repeat(20_000))]));
    expect(ok.body.result.status.state).toBe('submitted');
  });

  it('tasks/cancel: the sender cancels (-32002 once it has ended), the target may not (-32011, 403)', async () => {
    const id = await task(node(0), ann, 'ben');
    const byTarget = await rpc(`${node(1).url}v1/a2a/ben`, 'tasks/cancel', { id }, { token: ben.token });
    expect([byTarget.status, byTarget.body.error.code]).toEqual([403, -32011]);
    const canceled = await rpc(`${node(1).url}v1/a2a/ben`, 'tasks/cancel', { id }, { token: ann.token });
    expect(canceled.body.result.status.state).toBe('canceled');

    const done = await task(node(0), ann, 'ben');
    await rest(node(1), 'POST', `v1/a2a/tasks/${done}/respond`, { token: ben.token, body: { state: 'completed' } });
    const late = await rpc(`${node(0).url}v1/a2a/ben`, 'tasks/cancel', { id: done }, { token: ann.token });
    expect(late.body.error.code).toBe(-32002);
    // A message on an ended task is not supported (-32004).
    const more = await vornSend(
      node(1),
      'ben',
      ann.token,
      vornMessage([{ kind: 'text', text: 'and?' }], { taskId: done }),
    );
    expect(more.body.error.code).toBe(-32004);
  });

  it('answers -32001 for a task the caller may not see, 404 for no such agent, -32010 (401) without a live token', async () => {
    const id = await task(node(0), ann, 'ben');
    const third = await rpc(`${node(1).url}v1/a2a/ben`, 'tasks/get', { id }, { token: cat.token });
    expect(third.body.error.code).toBe(-32001);
    const unknown = await rpc(
      `${node(0).url}v1/a2a/ben`,
      'tasks/get',
      { id: crypto.randomUUID() },
      { token: ann.token },
    );
    expect(unknown.body.error.code).toBe(-32001);

    const noAgent = await vornSend(node(0), 'nobody-here', ann.token, vornMessage([{ kind: 'text', text: 'hi' }]));
    expect(noAgent.status).toBe(404);
    expect(noAgent.body).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32001 } });

    const anonymous = await vornSend(node(1), 'ben', undefined, vornMessage([{ kind: 'text', text: 'hi' }]));
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, -32010]);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    const forged = await vornSend(node(1), 'ben', 'vorn_agent_forged', vornMessage([{ kind: 'text', text: 'hi' }]));
    expect([forged.status, forged.body.error.code]).toEqual([401, -32010]);
    const toSelf = await vornSend(node(0), 'ann', ann.token, vornMessage([{ kind: 'text', text: 'me' }]));
    expect([toSelf.status, toSelf.body.error.code]).toEqual([403, -32011]);
    const method = await rpc(`${node(0).url}v1/a2a/ben`, 'SendMessage', {}, { token: ann.token });
    expect(method.body.error.code).toBe(-32601);
    expect(method.body.error.data.hint).toMatch(/message\/send/);
  });

  it('takes the agent id in place of the handle', async () => {
    const sent = await vornSend(node(1), ben.id, ann.token, vornMessage([{ kind: 'text', text: 'by id' }]));
    expect(sent.body.result.metadata.muster).toMatchObject({ from: 'ann', to: 'ben' });
  });

  it('rate limits 30 tasks a minute from one sender to one target: -32029 with HTTP 429, nothing stored', async () => {
    const dan = await agent(node(0), 'dan');
    const eve = await agent(node(1), 'eve');
    await awayFromWindowEdge(60_000);
    const answers = [];
    for (let i = 0; i < 31; i++)
      answers.push(await vornSend(node(i), 'eve', dan.token, vornMessage([{ kind: 'text', text: `n${i}` }])));
    expect(answers.slice(0, 30).every((a) => a.body.result?.status.state === 'submitted')).toBe(true);
    const last = answers[30]!;
    expect([last.status, last.body.error.code]).toEqual([429, -32029]);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    const inbox = await rest(node(0), 'GET', 'v1/a2a/inbox?state=all&limit=50', { token: eve.token });
    expect(inbox.body.data).toHaveLength(30);
  });

  it('the platform endpoint is a stateless directory: message/send answers a Message, and it has no tasks', async () => {
    const asked = await rpc(
      `${node(0).url}v1/a2a`,
      'message/send',
      { message: vornMessage([{ kind: 'text', text: 'ben' }]) },
      { token: ann.token },
    );
    expect(asked.body.result).toMatchObject({ kind: 'message', role: 'agent' });
    const data = asked.body.result.parts.find((p: any) => p.kind === 'data').data;
    expect(data.agents).toEqual([
      expect.objectContaining({
        id: ben.id,
        handle: 'ben',
        display_name: 'Ben Writes',
        a2a_url: `${node(0).url}v1/a2a/ben`,
      }),
    ]);
    expect(data.has_more).toBe(false);
    const get = await rpc(
      `${node(1).url}v1/a2a`,
      'tasks/get',
      { id: asked.body.result.messageId },
      { token: ann.token },
    );
    expect(get.body.error.code).toBe(-32001);
    const cancel = await rpc(`${node(1).url}v1/a2a`, 'tasks/cancel', { id: crypto.randomUUID() }, { token: ann.token });
    expect(cancel.body.error.code).toBe(-32001);
    const anonymous = await rpc(`${node(0).url}v1/a2a`, 'message/send', {
      message: vornMessage([{ kind: 'text', text: 'x' }]),
    });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, -32010]);
    // Nothing was stored: the asker has no task from it.
    const sent = await rest(node(0), 'GET', 'v1/a2a/sent?state=all&limit=50', { token: cat.token });
    expect(sent.body.data).toEqual([]);
  });

  it("serves each agent's card signed with Muster's key, its url the agent's Vorn endpoint", async () => {
    const url = `${node(1).url}v1/agents/ben/card`;
    const { card } = await fetchCard(url);
    expect(card).toMatchObject({
      name: 'Ben Writes',
      protocolVersion: '0.3.0',
      url: `${node(1).url}v1/a2a/ben`,
      preferredTransport: 'JSONRPC',
      metadata: { agent_id: ben.id, handle: 'ben' },
    });
    expect(card['did']).toBeUndefined();
    const header = await verifyWithJose(card, `${node(1).url}.well-known/jwks.json`);
    expect(header['alg']).toBe('EdDSA');
    await verifyWithSdk(card);
    expect((await fetchCard(`${node(0).url}v1/agents/${ben.id}/card`)).card['url']).toBe(`${node(0).url}v1/a2a/ben`);
    const missing = await rest(node(0), 'GET', 'v1/agents/nobody-here/card');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND', status: 404, error: expect.any(String) });
    // No key is served under Vorn's name.
    expect((await rest(node(0), 'GET', '.well-known/vorn-signing-key')).status).toBe(404);
  });
});
