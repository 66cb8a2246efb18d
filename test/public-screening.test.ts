/**
 * One privacy screening for everything public (docs/privacy-screening.md): a public intent (its
 * declaration, messages, landing, failure, withdrawal), a space's description, a public board and
 * its cards, and an agent's profile and skills are refused with the same code and hint, and
 * nothing stored is lost or changed; the same texts on private things (a private board, a direct
 * task) are accepted. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { register, registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let owner: Registered, orch: Registered, worker: Registered;

/** Private-looking text: an API key and a personal e-mail address. */
const LEAK = 'Use sk-live-4f9Qx2LmT8vZ1pRk7sWd and mail carol@acme-mail.io with the result';
const HINT = 'Remove credentials, tokens, e-mail addresses, local paths, private URLs and raw logs, and send it again';

interface Refusal {
  code: string;
  hint: string;
  fields: string[];
}
/** A refusal in one shape, from a REST body or a JSON-RPC error. */
function refusalOf(body: any): Refusal {
  if (body.error?.data) {
    const [info, bad] = body.error.data;
    return {
      code: info.reason,
      hint: info.metadata.hint,
      fields: (bad?.fieldViolations ?? []).map((v: any) => v.field),
    };
  }
  return { code: body.error.code, hint: body.error.hint, fields: (body.error.fields ?? []).map((f: any) => f.field) };
}
/** Expects the one privacy refusal, naming `field`. */
const expectScreened = (body: any, field: string) => {
  const refusal = refusalOf(body);
  expect(refusal).toMatchObject({ code: 'PRIVATE_CONTENT', hint: HINT });
  expect(refusal.fields).toContain(field);
};

const message = (parts: unknown[]) => ({ messageId: randomUUID(), role: 'ROLE_USER', parts });
const send = (base: string, parts: unknown[], token: string) =>
  rpc(
    `${hub.url}${base}`,
    'SendMessage',
    { message: message(parts), configuration: { returnImmediately: true } },
    { token },
  );
const act = (id: string, action: string, token: string, body: unknown = {}) =>
  rest(hub, 'POST', `api/tasks/${id}/${action}`, { token, body });
const task = async (id: string) => (await rpc(hub.url, 'GetTask', { id })).body.result;
const board = (who: Registered, skill: string, args: unknown) =>
  send('memory/', [{ data: { skill, args } }], who.token);

beforeAll(async () => {
  hub = await startTestHub();
  [owner, orch, worker] = await registerAll(hub, 'owner', 'orch', 'worker');
  expect((await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name: 'work' } })).status).toBe(201);
  for (const [who, role] of [
    [orch, 'orchestrator'],
    [worker, 'worker'],
  ] as const)
    await rest(hub, 'PUT', `api/spaces/work/members/${who.handle}`, { token: owner.token, body: { role } });
});
afterAll(() => hub.destroy());

describe('a public intent', () => {
  it('is refused with private text in its declaration, messages, landing, failure or withdrawal; nothing stored changes', async () => {
    const footprint = { footprint: ['src/links/**'] };
    const leaky = await send('spaces/work/', [{ text: `Rotate the key\n${LEAK}` }, { data: footprint }], orch.token);
    expectScreened(leaky.body, 'params.message.parts[0].text');
    const inData = await send(
      'spaces/work/',
      [{ text: 'Fix it' }, { data: { ...footprint, acceptance: [LEAK] } }],
      orch.token,
    );
    expectScreened(inData.body, 'params.message.parts[1].data.acceptance[0]');
    // A seed dialect translates onto the same kind, so FireTrident's colony route is screened too.
    const colony = await rest(hub, 'POST', 'api/colonies/work/intents', {
      token: orch.token,
      body: { title: 'Rotate the key', why: LEAK, footprint: ['src/links/**'] },
    });
    expect(colony.status).toBe(400);
    expect(refusalOf(colony.body)).toMatchObject({ code: 'PRIVATE_CONTENT', hint: HINT });
    const listed = await rest(hub, 'GET', 'api/spaces/work/intents');
    expect(listed.body.data).toEqual([]);

    const declared = await send(
      'spaces/work/',
      [{ text: 'Rotate the key\nThe old one leaked.' }, { data: footprint }],
      orch.token,
    );
    const id = declared.body.result.task.id;
    expect((await act(id, 'claim', worker.token)).status).toBe(200);
    const before = await task(id);

    expectScreened((await act(id, 'progress', worker.token, { message: LEAK })).body, 'message.parts[0].text');
    expectScreened((await act(id, 'input-required', worker.token, { message: LEAK })).body, 'message.parts[0].text');
    expectScreened((await act(id, 'land', worker.token, { summary: LEAK })).body, 'summary');
    expectScreened(
      (await act(id, 'land', worker.token, { summary: 'Rotated', files: [{ path: '/home/carol/keys.txt' }] })).body,
      'files[0].path',
    );
    expectScreened((await act(id, 'fail', worker.token, { reason: LEAK })).body, 'reason');
    const withdrawn = await rpc(
      `${hub.url}spaces/work/`,
      'CancelTask',
      { id, metadata: { reason: LEAK } },
      { token: orch.token },
    );
    expectScreened(withdrawn.body, 'params.reason');
    const after = await task(id);
    expect(after.status.state).toBe('TASK_STATE_WORKING');
    expect(after.history).toEqual(before.history);
    expect(after.artifacts ?? []).toEqual([]);

    expect((await act(id, 'progress', worker.token, { message: 'Rotated in the vault' })).status).toBe(200);
    expect(
      (await act(id, 'land', worker.token, { summary: 'Rotated', files: [{ path: 'config/keys.ts' }] })).status,
    ).toBe(200);
    expect((await task(id)).status.state).toBe('TASK_STATE_COMPLETED');
  });

  it("a space's description is public too: refused at creation and on change", async () => {
    const made = await rest(hub, 'POST', 'api/spaces', {
      token: owner.token,
      body: { name: 'leaky', description: LEAK },
    });
    expectScreened(made.body, 'description');
    expect((await rest(hub, 'GET', 'api/spaces/leaky')).status).toBe(404);
    const changed = await rest(hub, 'PATCH', 'api/spaces/work', { token: owner.token, body: { description: LEAK } });
    expectScreened(changed.body, 'description');
    expect((await rest(hub, 'GET', 'api/spaces/work')).body.description).toBeUndefined();
  });
});

describe('boards', () => {
  it('a public board and its cards are screened as written; a private board takes the same text', async () => {
    const created = await board(orch, 'board.create', { title: 'Runbook', visibility: 'public', cards: [LEAK] });
    expectScreened(created.body, 'params.message.parts[0].data.args.cards[0]');
    const titled = await board(orch, 'board.create', {
      title: 'carol@acme-mail.io',
      visibility: 'public',
      cards: ['ok'],
    });
    expectScreened(titled.body, 'params.message.parts[0].data.args.title');
    const list = await board(orch, 'board.list', {});
    expect(list.body.result.task.artifacts[0].parts[1].data.boards).toEqual([]);

    const made = await board(orch, 'board.create', {
      title: 'Runbook',
      visibility: 'public',
      cards: ['Restart the pool'],
    });
    const id = made.body.result.task.artifacts[0].parts[1].data.board.id;
    const remembered = await board(orch, 'board.remember', { board: id, cards: [{ text: 'fine', title: LEAK }] });
    expectScreened(remembered.body, 'params.message.parts[0].data.args.cards[0].title');
    const learned = await board(orch, 'board.learn', {
      board: id,
      text: 'Check the pool',
      evidence: ['/home/carol/pool.log'],
    });
    expectScreened(learned.body, 'params.message.parts[0].data.args.evidence[0]');
    const read = await board(orch, 'board.read', { board: id });
    expect(read.body.result.task.artifacts[0].parts[1].data.cards.map((c: any) => c.text)).toEqual([
      'Restart the pool',
    ]);

    const own = await board(orch, 'board.create', { title: 'Notes', cards: [LEAK] });
    expect(own.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const shared = await board(orch, 'board.create', {
      title: 'Shared',
      visibility: 'shared',
      sharedWith: [worker.handle],
      cards: [LEAK],
    });
    expect(shared.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    const noted = await board(orch, 'board.remember', { board: 'Notes', cards: [{ text: 'more', title: LEAK }] });
    expect(noted.body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('a direct task', () => {
  it('is private to its sender and target, so it is not screened', async () => {
    const sent = await send(`agents/${worker.handle}/`, [{ text: LEAK }], orch.token);
    expect(sent.body.result.task.history[0].parts[0].text).toBe(LEAK);
  });
});

describe('agent profiles', () => {
  it('are screened at registration and on every change; a refusal keeps the profile as it was', async () => {
    const leaky = await rest(hub, 'POST', 'api/agents', { body: { handle: 'leaky', description: LEAK } });
    expectScreened(leaky.body, 'description');
    expect((await rest(hub, 'GET', 'api/agents/leaky')).status).toBe(404);

    const dana = await register(hub, 'dana', { name: 'Dana' });
    const patch = (body: unknown) => rest(hub, 'PATCH', `api/agents/dana`, { token: dana.token, body });
    const skill = { id: 'translate', name: 'Translate', description: 'English to German' };
    expect((await patch({ skills: [skill] })).status).toBe(200);
    expectScreened((await patch({ name: 'carol@acme-mail.io' })).body, 'name');
    expectScreened((await patch({ skills: [{ ...skill, examples: [LEAK] }] })).body, 'skills[0].examples[0]');
    expectScreened((await patch({ skills: [{ ...skill, description: LEAK }] })).body, 'skills[0].description');
    const kept = (await rest(hub, 'GET', 'api/agents/dana')).body;
    expect(kept).toMatchObject({ name: 'Dana', skills: [skill] });
  });
});
