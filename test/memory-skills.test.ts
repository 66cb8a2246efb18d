/**
 * What the memory base learned from KLYPIX, natively (A2A 1.0 at /memory/): board.learn keeps a
 * how-to as a skill card that recall puts first; a one-card remember or learn keeps evidence and
 * verify as text (in the board file and the answers), refused when malformed or on more cards; a
 * call naming `askOnError` is asked again for those args when they are wrong, in the same task;
 * "Summarize the canvas X" reads X and "Make a board" without items asks for them. Runs on
 * SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let eve: Registered;

const send = async (parts: unknown[], extra: Record<string, unknown> = {}) =>
  (
    await rpc(
      `${hub.url}memory/`,
      'SendMessage',
      { message: { messageId: randomUUID(), role: 'ROLE_USER', parts, ...extra } },
      { token: eve.token },
    )
  ).body;
const call = async (data: unknown, extra: Record<string, unknown> = {}) => {
  const body = await send([{ data }], extra);
  if (!body.result) throw new Error(JSON.stringify(body));
  return body.result.task;
};
const resultData = (task: any) => task.artifacts[0].parts[1].data;
const cardsOf = async (board: string) =>
  (await rest(hub, 'GET', `api/boards/${board}`, { token: eve.token })).body.cards;

beforeAll(async () => {
  hub = await startTestHub();
  [eve] = await registerAll(hub, 'skills-eve');
});
afterAll(() => hub.close());

describe('skill cards and capture fields at the memory base', () => {
  it('learns a skill card on the caller’s own board, which recall puts before a tagged plain card', async () => {
    await call({
      skill: 'board.remember',
      args: { board: 'memory-skills-eve', cards: ['Backups run nightly #backup'] },
    });
    const learned = await call({
      skill: 'board.learn',
      args: { title: 'Restore a backup', text: 'Stop the hub before you restore a backup', verify: 'muster status' },
    });
    expect(learned.status.state).toBe('TASK_STATE_COMPLETED');
    expect(learned.metadata.muster).toMatchObject({ skill: 'board.learn', board: 'memory-skills-eve' });
    const cards = await cardsOf('memory-skills-eve');
    expect(cards.at(-1)).toMatchObject({ kind: 'skill', title: 'Restore a backup', verify: 'muster status' });
    expect(cards[0].kind).toBeUndefined();
    const found = resultData(await call({ skill: 'board.recall', args: { query: 'backup #backup' } })).cards;
    expect(found.map((c: any) => c.kind ?? 'plain')).toEqual(['skill', 'plain']);
  });

  it('keeps evidence and verify on one card, and refuses them malformed or on more cards, writing nothing', async () => {
    const evidence = ['https://example.com/issue/7'];
    await call({
      skill: 'board.remember',
      args: { board: 'memory-skills-eve', cards: ['Nightly is 02:00'], evidence },
    });
    expect((await cardsOf('memory-skills-eve')).at(-1)).toMatchObject({ text: 'Nightly is 02:00', evidence });
    const before = (await cardsOf('memory-skills-eve')).length;
    for (const [args, field] of [
      [{ cards: ['a'], evidence: ['ok', 'two\nlines'] }, 'evidence[1]'],
      [{ cards: ['a'], evidence: Array(11).fill('ref') }, 'evidence'],
      [{ cards: ['a'], verify: 7 }, 'verify'],
      [{ cards: ['a', 'b'], evidence: ['ref'] }, 'evidence'],
    ] as const) {
      const { error } = await send([
        { data: { skill: 'board.remember', args: { board: 'memory-skills-eve', ...args } } },
      ]);
      expect(error?.data[1].fieldViolations[0].field, JSON.stringify(args)).toBe(
        `params.message.parts[0].data.args.${field}`,
      );
    }
    expect(await cardsOf('memory-skills-eve')).toHaveLength(before);
  });

  it('asks again for args named in askOnError when they are wrong, and continues the same task', async () => {
    const asked = await call({
      skill: 'board.create',
      args: { title: 'Asked', cards: ['x', 'y'], connections: [{ from: 0, to: 3 }] },
      askOnError: ['connections'],
    });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.status.message.parts[1].data).toMatchObject({
      missing: ['connections'],
      wrong: [{ field: 'message.parts[0].data.args.connections[0].to' }],
    });
    const done = await call({ connections: [{ from: 0, to: 1, type: 'answers' }] }, { taskId: asked.id });
    expect(done).toMatchObject({ id: asked.id, status: { state: 'TASK_STATE_COMPLETED' } });
    // Without askOnError the same call is refused, as before.
    const { error } = await send([
      { data: { skill: 'board.create', args: { title: 'Refused', cards: ['x'], connections: [{ from: 0, to: 3 }] } } },
    ]);
    expect(error.code).toBe(-32602);
    const bad = await send([{ data: { skill: 'board.create', args: {}, askOnError: ['nothing'] } }]);
    expect(bad.error.data[1].fieldViolations[0].field).toBe('params.message.parts[0].data.askOnError');
  });

  it('reads a board asked for as "Summarize the canvas X", and asks for the items of "Make a board"', async () => {
    await call({ skill: 'board.create', args: { title: 'roadmap', cards: ['Q1'] } });
    const read = (await send([{ text: 'Summarize the canvas roadmap.' }])).result.task;
    expect(read.metadata.muster.skill).toBe('board.read');
    const asked = (await send([{ text: 'Make a board' }])).result.task;
    expect(asked.status.message.parts[1].data).toMatchObject({ skill: 'board.create', missing: ['title', 'cards'] });
  });
});
