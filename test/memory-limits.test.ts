/**
 * The memory base's documented limits, end to end: cards per board (BOARD_FULL), boards per agent
 * (BOARD_LIMIT), and 600 memory calls a minute from one agent (RATE_LIMITED); each refusal writes
 * nothing. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  awayFromWindowEdge,
  registerAll,
  rest,
  rpc,
  startTestHub,
  type Registered,
  type TestHub,
} from './helpers/hub.js';

let hub: TestHub;
let ann: Registered, bob: Registered, cy: Registered;

const send = (who: Registered, skill: string, args: unknown) =>
  rpc(
    `${hub.url}memory/`,
    'SendMessage',
    { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill, args } }] } },
    { token: who.token },
  );
const ok = async (who: Registered, skill: string, args: unknown) => {
  const res = await send(who, skill, args);
  if (!res.body.result) throw new Error(JSON.stringify(res.body));
  return res.body.result.task;
};
const cards = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `card ${from + i}`);
const boardCount = async (who: Registered) =>
  (await ok(who, 'board.list', {})).artifacts[0].parts.find((p: any) => p.data).data.boards.length;

beforeAll(async () => {
  hub = await startTestHub();
  [ann, bob, cy] = await registerAll(hub, 'limit-ann', 'limit-bob', 'limit-cy');
});
afterAll(() => hub.destroy());

describe('memory limits', { timeout: 120_000 }, () => {
  it('a board holds 2,000 cards: one more is BOARD_FULL and writes nothing', async () => {
    const board = (await ok(ann, 'board.create', { title: 'Full board', cards: cards(100) })).metadata.muster.board;
    for (let i = 1; i < 20; i++) await ok(ann, 'board.remember', { board, cards: cards(100, i * 100) });
    const full = await send(ann, 'board.remember', { board, cards: ['one too many'] });
    expect(full.body.error.data[0].reason).toBe('BOARD_FULL');
    const read = await ok(ann, 'board.read', { board });
    const data = read.artifacts[0].parts.find((p: any) => p.data).data;
    expect(data.board.cards).toBe(2000);
    // a large board is answered in part, with its file as a link: answers (and the tasks keeping them) stay small
    expect([data.cards.length, data.moreCards]).toEqual([200, 1800]);
    const link = read.artifacts.find((a: any) => a.artifactId === 'board').parts[0];
    expect(link).toMatchObject({
      url: `${hub.url}api/boards/${board}`,
      mediaType: 'application/vnd.muster.board+json',
    });
    expect(link.raw).toBeUndefined();
    expect((await rest(hub, 'GET', `api/boards/${board}`, { token: ann.token })).body.cards).toHaveLength(2000);
  });

  it('an agent owns 100 boards: the 101st is BOARD_LIMIT, and nothing is made', async () => {
    await Promise.all(
      Array.from({ length: 100 }, (_, i) => ok(bob, 'board.create', { title: `Board ${i}`, cards: ['x'] })),
    );
    const over = await send(bob, 'board.create', { title: 'One too many', cards: ['x'] });
    expect(over.body.error.data[0].reason).toBe('BOARD_LIMIT');
    expect(await boardCount(bob)).toBe(100);
  });

  it('600 memory calls a minute from one agent pass; the next is RATE_LIMITED with a time to retry, and writes nothing', async () => {
    await awayFromWindowEdge(60_000, 20_000);
    const board = (await ok(cy, 'board.create', { title: 'Rate board', cards: ['first'] })).metadata.muster.board;
    const answers = await Promise.all(Array.from({ length: 599 }, () => send(cy, 'board.list', {})));
    expect(answers.filter((a) => a.body.result).length).toBe(599);
    const over = await send(cy, 'board.remember', { board, cards: ['one call too many'] });
    expect(over.body.error.data[0].reason).toBe('RATE_LIMITED');
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    const file = await rest(hub, 'GET', `api/boards/${board}`, { token: cy.token });
    expect(file.body.cards.map((c: any) => c.text)).toEqual(['first']);
  });
});
