/**
 * Memory boards end to end, what the memory base guards: private, shared and public boards seen
 * only by whom they should be, bad input and repeated or clashing writes refused naming the
 * field and writing nothing, and concurrent writes losing no card. Runs on SQLite, and on
 * PostgreSQL under MUSTER_TEST_PG; the skills themselves: memory-boards.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rest, rpc, type TestHub } from './helpers/hub.js';
import {
  BOARD_TYPE,
  call,
  dataMessage,
  refused,
  resultData,
  skill,
  startMemoryHub,
  type MemoryCaller,
} from './helpers/memory.js';

let hub: TestHub;
let memory: string;
let ann: MemoryCaller, bob: MemoryCaller, cy: MemoryCaller;

beforeAll(async () => {
  ({ hub, memory, ann, bob, cy } = await startMemoryHub());
  // ann's own "Launch plan", which a title lookup must find before another agent's public one.
  await skill(ann, 'board.create', { title: 'Launch plan', cards: ['Ship the A2A face #launch'] });
});
afterAll(() => hub.destroy());

describe('visibility', () => {
  it('private boards are never found by another agent; shared ones by the agents named; public ones by all, even without a token over REST', async () => {
    const word = `quokka${Date.now()}`;
    const secret = (await skill(ann, 'board.create', { title: 'Ann secret', cards: [`the ${word} plan`] })).metadata
      .muster.board;
    const shared = (
      await skill(ann, 'board.create', {
        title: 'Ann and bob',
        cards: [`${word} for two`],
        visibility: 'shared',
        sharedWith: ['bob'],
      })
    ).metadata.muster.board;
    const open = (
      await skill(ann, 'board.create', { title: 'Ann public', cards: [`a public ${word}`], visibility: 'public' })
    ).metadata.muster.board;
    const found = async (who: MemoryCaller) =>
      resultData(await skill(who, 'board.recall', { query: word }))
        .cards.map((c: any) => c.board.id)
        .sort();
    expect(await found(ann)).toEqual([secret, shared, open].sort());
    expect(await found(bob)).toEqual([shared, open].sort());
    expect(await found(cy)).toEqual([open]);
    const byCy = await refused(cy, dataMessage({ skill: 'board.read', args: { board: secret } }));
    expect(byCy.data[0].reason).toBe('BOARD_NOT_FOUND');
    const missing = await refused(cy, dataMessage({ skill: 'board.read', args: { board: 'no-such-board' } }));
    expect(missing.message).toBe(byCy.message.replace(secret, 'no-such-board'));
    expect(resultData(await skill(cy, 'board.list', {})).boards.map((b: any) => b.id)).not.toContain(secret);
    const notShared = await refused(
      cy,
      dataMessage({ skill: 'board.remember', args: { board: open, cards: ['mine now'] } }),
    );
    expect(notShared.data[0].reason).toBe('FORBIDDEN');
    expect((await skill(bob, 'board.remember', { board: shared, cards: ['bob was here'] })).status.state).toBe(
      'TASK_STATE_COMPLETED',
    );

    const anonymous = await rest(hub, 'GET', `api/boards/${open}`);
    expect(anonymous.status).toBe(200);
    expect(anonymous.headers.get('content-type')).toContain(BOARD_TYPE);
    expect(anonymous.body.board.id).toBe(open);
    expect((await rest(hub, 'GET', `api/boards/${secret}`)).status).toBe(404);
    expect((await rest(hub, 'GET', `api/boards/${secret}`, { token: ann.token })).status).toBe(200);
    const publicList = (await rest(hub, 'GET', 'api/boards?limit=50')).body.data.map((b: any) => b.id);
    expect(publicList).toContain(open);
    expect(publicList).not.toContain(secret);
    // a call is a task private to its caller
    const task = await skill(ann, 'board.list', {});
    expect((await rpc(memory, 'GetTask', { id: task.id }, { token: bob.token })).body.error.data[0].reason).toBe(
      'TASK_NOT_FOUND',
    );
    expect((await rpc(memory, 'GetTask', { id: task.id }, { token: ann.token })).body.result.id).toBe(task.id);
  });
});

describe('bad input', () => {
  it('names the field, says what to send, and writes nothing', async () => {
    const before = resultData(await skill(cy, 'board.list', {})).boards.length;
    const cases: [unknown, string, string][] = [
      [{ skill: 'board.nope', args: {} }, 'INVALID_PARAMS', 'message.parts[0].data.skill'],
      [
        { skill: 'board.create', args: { title: 'x', cards: 'not a list' } },
        'INVALID_PARAMS',
        'message.parts[0].data.args.cards',
      ],
      [
        { skill: 'board.create', args: { title: 'x', cards: Array.from({ length: 101 }, (_, i) => `card ${i}`) } },
        'INVALID_PARAMS',
        'message.parts[0].data.args.cards',
      ],
      [
        { skill: 'board.create', args: { title: 'x', cards: ['y'.repeat(4001)] } },
        'INVALID_PARAMS',
        'message.parts[0].data.args.cards[0]',
      ],
      [
        { skill: 'board.create', args: { title: 'x', cards: ['a'], connections: [{ from: 0, to: 5 }] } },
        'INVALID_PARAMS',
        'message.parts[0].data.args.connections[0].to',
      ],
      [
        { skill: 'board.create', args: { title: 'x', cards: ['a'], colour: 'red' } },
        'INVALID_PARAMS',
        'message.parts[0].data.args',
      ],
    ];
    for (const [data, reason, field] of cases) {
      const error = await refused(cy, dataMessage(data));
      expect(error.data[0].reason, JSON.stringify(data).slice(0, 80)).toBe(reason);
      const fields = error.data.find((d: any) => d.fieldViolations)?.fieldViolations.map((v: any) => v.field) ?? [];
      expect(
        fields.some((f: string) => f.startsWith(`params.${field}`) || f.startsWith(field)),
        `${JSON.stringify(fields)} names ${field}`,
      ).toBe(true);
    }
    expect(resultData(await skill(cy, 'board.list', {})).boards.length).toBe(before);
  });
});

describe('writes that are refused or repeated', () => {
  it('a retried message writes nothing twice; the same messageId with other content is refused and writes nothing', async () => {
    const board = (await skill(bob, 'board.create', { title: 'Retries', cards: ['one'] })).metadata.muster.board;
    const message = dataMessage({ skill: 'board.remember', args: { board, cards: ['two'] } });
    const first = await call(bob, message);
    const again = await call(bob, message);
    expect(again.id).toBe(first.id);
    const reused = await refused(bob, {
      ...message,
      parts: [{ data: { skill: 'board.remember', args: { board, cards: ['three'] } } }],
    });
    expect(reused.data[0].reason).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(
      (await rest(hub, 'GET', `api/boards/${board}`, { token: bob.token })).body.cards.map((c: any) => c.text),
    ).toEqual(['one', 'two']);
  });

  it('card ids: one given twice in a call, or naming a card on the board with other content, is refused naming the field', async () => {
    const twice = await refused(
      bob,
      dataMessage({
        skill: 'board.create',
        args: {
          title: 'Ids',
          cards: [
            { id: 'x1', text: 'a' },
            { id: 'x1', text: 'b' },
          ],
        },
      }),
    );
    expect(twice.data.find((d: any) => d.fieldViolations).fieldViolations[0].field).toBe(
      'params.message.parts[0].data.args.cards[1].id',
    );
    const board = (await skill(bob, 'board.create', { title: 'Ids', cards: [{ id: 'plan', text: 'the plan' }] }))
      .metadata.muster.board;
    const taken = await refused(
      bob,
      dataMessage({ skill: 'board.remember', args: { board, cards: [{ id: 'plan', text: 'another plan' }] } }),
    );
    expect(taken.data.find((d: any) => d.fieldViolations).fieldViolations[0].field).toBe(
      'params.message.parts[0].data.args.cards[0].id',
    );
    expect(
      (await rest(hub, 'GET', `api/boards/${board}`, { token: bob.token })).body.cards.map((c: any) => c.text),
    ).toEqual(['the plan']);
  });

  it('a push config with a new call is refused naming the field: the call is settled as it opens', async () => {
    const res = await rpc(
      memory,
      'SendMessage',
      {
        message: dataMessage({ skill: 'board.list', args: {} }),
        configuration: { taskPushNotificationConfig: { url: 'http://127.0.0.1:9/hook' } },
      },
      { token: bob.token },
    );
    expect(res.body.error.data[0].reason).toBe('INVALID_PARAMS');
    expect(res.body.error.data.find((d: any) => d.fieldViolations).fieldViolations[0].field).toBe(
      'params.configuration.taskPushNotificationConfig',
    );
  });

  it('sharedWith must name agents, and only for a shared board', async () => {
    const ghost = await refused(
      bob,
      dataMessage({
        skill: 'board.create',
        args: { title: 'S', cards: ['a'], visibility: 'shared', sharedWith: ['ann', 'no-such-agent'] },
      }),
    );
    expect(ghost.data.find((d: any) => d.fieldViolations).fieldViolations[0].field).toBe(
      'params.message.parts[0].data.args.sharedWith[1]',
    );
    const notShared = await refused(
      bob,
      dataMessage({ skill: 'board.create', args: { title: 'S', cards: ['a'], sharedWith: ['ann'] } }),
    );
    expect(notShared.data.find((d: any) => d.fieldViolations).fieldViolations[0].field).toBe(
      'params.message.parts[0].data.args.sharedWith',
    );
  });

  it("a title is looked up among the caller's own boards first: another agent's public board of the same title does not hide it", async () => {
    await skill(cy, 'board.create', { title: 'Launch plan', cards: ['squatting'], visibility: 'public' });
    const read = await skill(ann, 'board.read', { board: 'Launch plan' });
    expect(resultData(read).board.owner).toBe('ann');
  });
});

describe('concurrency', () => {
  it('50 concurrent board.remember calls into one board lose no card', async () => {
    const id = (await skill(cy, 'board.create', { title: 'Busy board', cards: ['first'] })).metadata.muster.board;
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => skill(cy, 'board.remember', { board: id, cards: [`card ${i}`] })),
    );
    expect(results.every((t) => t.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    const cards = resultData(await skill(cy, 'board.read', { board: id })).cards.map((c: any) => c.text);
    expect(cards).toHaveLength(51);
    expect(new Set(cards).size).toBe(51);
  });
});
