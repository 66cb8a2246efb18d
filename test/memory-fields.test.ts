/**
 * Refusals at the memory base name fields where the caller put them: a follow-up's own data part
 * (`message.parts[0].data.board`, not `…data.args.board`), and the text part of a call in plain
 * words (which sent no data part at all). Each refusal writes nothing. Runs on SQLite, and on
 * PostgreSQL under MUSTER_TEST_PG.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';

let hub: TestHub;
let dee: Registered;
const memory = () => `${hub.url}memory/`;

const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts,
  ...extra,
});
const dataMessage = (data: unknown, extra?: Record<string, unknown>) => message([{ data }], extra);
const textMessage = (text: string, extra?: Record<string, unknown>) => message([{ text }], extra);

async function send(msg: unknown) {
  return (await rpc(memory(), 'SendMessage', { message: msg }, { token: dee.token })).body;
}
async function task(msg: unknown) {
  const body = await send(msg);
  if (!body.result) throw new Error(JSON.stringify(body));
  return body.result.task;
}
/** The refusal of a message that must be refused: its reason, fields, message and hint. */
async function refusal(msg: unknown) {
  const { error } = await send(msg);
  expect(error, 'refused').toBeDefined();
  const violations = error.data.find((d: any) => d.fieldViolations)?.fieldViolations ?? [];
  return {
    reason: error.data[0].reason,
    fields: violations.map((v: any) => v.field),
    descriptions: violations.map((v: any) => v.description),
    message: error.message,
    hint: error.data[0].metadata?.hint,
  };
}
const cardTexts = async (board: string) =>
  (await rest(hub, 'GET', `api/boards/${board}`, { token: dee.token })).body.cards?.map((c: any) => c.text);
/** A board.remember call that asks for its board. */
const askedForBoard = async (cards: unknown = ['Deploys go out on Tuesdays']) => {
  const asked = await task(dataMessage({ skill: 'board.remember', args: { cards } }));
  expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  return asked.id as string;
};

let board: string;
beforeAll(async () => {
  hub = await startTestHub();
  [dee] = await registerAll(hub, 'fields-dee');
  board = (await task(dataMessage({ skill: 'board.create', args: { title: 'Field notes', cards: ['first'] } })))
    .metadata.muster.board;
});
afterAll(() => hub.destroy());

describe('a follow-up names fields where it put them', () => {
  it('a bare data part ({"board": …}) is refused at message.parts[0].data.board', async () => {
    const taskId = await askedForBoard();
    const bad = await refusal(dataMessage({ board: '' }, { taskId }));
    expect(bad.reason).toBe('INVALID_PARAMS');
    expect(bad.fields).toEqual(['params.message.parts[0].data.board']);
    expect(bad.message).toContain("'params.message.parts[0].data.board'");
    expect(bad.message).not.toContain('.args');
  });

  it('an unknown field in a bare follow-up is named at message.parts[0].data.<field>', async () => {
    const taskId = await askedForBoard();
    const bad = await refusal(dataMessage({ board, colour: 'red' }, { taskId }));
    expect(bad.fields).toEqual(['params.message.parts[0].data.colour']);
    expect(await cardTexts(board)).toEqual(['first']);
  });

  it('a follow-up that wraps its data in {"args": …} is refused at message.parts[0].data.args.<field>', async () => {
    const taskId = await askedForBoard();
    const bad = await refusal(dataMessage({ args: { board: '' } }, { taskId }));
    expect(bad.fields).toEqual(['params.message.parts[0].data.args.board']);
  });

  it("a field the follow-up sends again replaces the opening's, and is named in the follow-up", async () => {
    const taskId = await askedForBoard();
    const bad = await refusal(dataMessage({ board, cards: ['y'.repeat(4001)] }, { taskId }));
    expect(bad.fields).toEqual(['params.message.parts[0].data.cards[0]']);
    expect(await cardTexts(board)).toEqual(['first']);
  });

  it('an arg kept from the opening message is named as it was sent there', async () => {
    const asked = await task(
      dataMessage({ skill: 'board.remember', args: { cards: ['a'], connections: [{ from: 0, to: 5 }] } }),
    );
    const bad = await refusal(dataMessage({ board }, { taskId: asked.id }));
    expect(bad.fields).toEqual(['params.message.parts[0].data.args.connections[0].to']);
  });

  it('a refused follow-up leaves the call waiting: a good one then completes it', async () => {
    const taskId = await askedForBoard(['Tuesdays, again']);
    await refusal(dataMessage({ board: '' }, { taskId }));
    const done = await task(dataMessage({ board }, { taskId }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await cardTexts(board)).toEqual(['first', 'Tuesdays, again']);
  });
});

describe('a call in plain words names the text part it sent', () => {
  const long = 'x'.repeat(4100);

  it('"Remember that" and 4,100 characters is refused at message.parts[0].text, saying what to send instead; nothing is written', async () => {
    const bad = await refusal(textMessage(`Remember that ${long}`));
    expect(bad.reason).toBe('INVALID_PARAMS');
    expect(bad.fields).toEqual(['params.message.parts[0].text']);
    expect(bad.message).not.toContain('.args');
    expect(bad.descriptions[0]).toContain('4000 characters');
    expect(bad.hint).toContain('"skill":"board.remember"');
    expect((await rest(hub, 'GET', 'api/boards/memory-fields-dee', { token: dee.token })).status).toBe(404);
  });

  it('a board title or a question over its limit names the text part too', async () => {
    const title = await refusal(textMessage(`Make a board called ${'t'.repeat(201)}: one; two`));
    expect(title.fields).toEqual(['params.message.parts[0].text']);
    expect(title.descriptions[0]).toContain('200 characters');
    const question = await refusal(textMessage(`What do we know about ${'q'.repeat(501)}?`));
    expect(question.fields).toEqual(['params.message.parts[0].text']);
    expect(question.hint).toContain('"skill":"board.recall"');
  });

  it('text in several parts is read as one, and refused naming message.parts', async () => {
    const bad = await refusal(message([{ text: 'Remember that' }, { text: long }]));
    expect(bad.fields).toEqual(['params.message.parts']);
  });

  it("plain words in a follow-up of a call that asked for a skill name the follow-up's text part", async () => {
    const lost = await task(textMessage('Lorem ipsum dolor'));
    expect(lost.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const bad = await refusal(textMessage(`Remember that ${long}`, { taskId: lost.id }));
    expect(bad.fields).toEqual(['params.message.parts[0].text']);
  });
});

describe('arguments present but wrong are refused at once, before the call asks for what it lacks', () => {
  const boardsOfDee = async () => (await rest(hub, 'GET', 'api/boards', { token: dee.token })).body;

  it('board.remember with cards that are not a list and no board: INVALID_PARAMS at …args.cards, not a question; nothing written', async () => {
    const before = await boardsOfDee();
    const bad = await refusal(dataMessage({ skill: 'board.remember', args: { cards: 'not a list' } }));
    expect(bad.reason).toBe('INVALID_PARAMS');
    expect(bad.fields).toEqual(['params.message.parts[0].data.args.cards']);
    expect(await boardsOfDee()).toEqual(before);
    expect(await cardTexts(board)).toEqual(expect.not.arrayContaining(['not a list']));
  });

  it('every skill: a wrong value, or an argument the skill does not take, beside a missing one is refused naming it', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ skill: 'board.create', args: { cards: ['y'.repeat(4001)] } }, 'params.message.parts[0].data.args.cards[0]'],
      [{ skill: 'board.create', args: { title: 'x'.repeat(201) } }, 'params.message.parts[0].data.args.title'],
      [
        { skill: 'board.remember', args: { cards: ['fine'], connections: 'none' } },
        'params.message.parts[0].data.args.connections',
      ],
      [
        { skill: 'board.remember', args: { cards: ['fine'], colour: 'red' } },
        'params.message.parts[0].data.args.colour',
      ],
      [{ skill: 'board.recall', args: { limit: 0 } }, 'params.message.parts[0].data.args.limit'],
      [{ skill: 'board.read', args: { colour: 'red' } }, 'params.message.parts[0].data.args.colour'],
      [{ skill: 'board.connect', args: { colour: 'red' } }, 'params.message.parts[0].data.args.colour'],
    ];
    for (const [data, field] of cases) {
      const bad = await refusal(dataMessage(data));
      expect(bad.reason, JSON.stringify(data).slice(0, 80)).toBe('INVALID_PARAMS');
      expect(bad.fields, JSON.stringify(data).slice(0, 80)).toContain(field);
    }
  });

  it('a follow-up that still lacks an argument has what it brings checked at once, named in its own data part', async () => {
    const asked = await task(dataMessage({ skill: 'board.remember', args: {} }));
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const bad = await refusal(dataMessage({ cards: 'not a list' }, { taskId: asked.id }));
    expect(bad.fields).toEqual(['params.message.parts[0].data.cards']);
    const stillAsks = await task(dataMessage({ cards: ['Kept for later'] }, { taskId: asked.id }));
    expect(stillAsks.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const done = await task(dataMessage({ board }, { taskId: asked.id }));
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(await cardTexts(board)).toContain('Kept for later');
  });

  it('right values beside a missing one still ask for it', async () => {
    const asked = await task(
      dataMessage({
        skill: 'board.create',
        args: { cards: ['one', { text: 'two', id: 'two' }], connections: [{ from: 0, to: 'two' }] },
      }),
    );
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.status.message.parts.find((p: any) => p.data).data.missing).toEqual(['title']);
  });
});
