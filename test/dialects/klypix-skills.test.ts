/**
 * KLYPIX's A2A face as its page describes it, over raw JSON-RPC at /klypix/: the card (its url,
 * streaming, the skill ids), the page's own make_board request, every skill by data part with
 * KLYPIX's argument names, the free-text routes, input-required for a write missing its input or
 * with malformed connections and its continuation in the same task, evidence and verify kept (and
 * refused when malformed), learn_skill first in recall, tasks/get and tasks/cancel, and the
 * refusals. On SQLite, and on two PostgreSQL nodes.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { fetchCard, verifyWithSdk } from '../helpers/card-signatures.js';
import { testDialect } from '../helpers/database.js';
import type { Registered } from '../helpers/hub.js';
import {
  agent,
  BOARD_TYPE,
  boardFileOf,
  dataOf,
  endpoint,
  klypix,
  klypixNodes,
  message,
  send,
  skillPart,
  textPart,
} from './klypix-fixture.js';

const SKILLS = [
  'make_board',
  'remember',
  'learn_skill',
  'recall',
  'read_canvas',
  'list_canvases',
  'brain_insights',
  'brain_connect',
];

describe(`KLYPIX at /klypix/ (${testDialect})`, () => {
  const { node } = klypixNodes('dialect_klypix_skills');
  let ann: Registered, ben: Registered;

  beforeAll(async () => {
    ann = await agent(node(0), 'ann');
    ben = await agent(node(1), 'ben');
  });

  it('publishes a 0.3 card whose url is the JSON-RPC endpoint, with streaming and KLYPIX skill ids and argument names', async () => {
    const card = (await fetchCard(`${endpoint(node(1))}.well-known/agent-card.json`)).card as any;
    expect(card).toMatchObject({ protocolVersion: '0.3.0', url: endpoint(node(1)), capabilities: { streaming: true } });
    expect(card.skills.map((s: any) => s.id)).toEqual(SKILLS);
    const said = (id: string) => card.skills.find((s: any) => s.id === id).description;
    expect(said('make_board')).toMatch(/title.*cards.*connections.*relationship/);
    expect(said('remember')).toMatch(/canvas.*evidence.*verify/);
    expect(said('read_canvas')).toContain('canvas');
    expect(card.skills.find((s: any) => s.id === 'make_board').outputModes).toContain(BOARD_TYPE);
    await verifyWithSdk(card); // signed with the hub's key, like every card it serves
  });

  it("answers the page's make_board request with a task whose artifacts[0] is the board file, naming the skill", async () => {
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          role: 'user',
          messageId: '1',
          parts: [
            {
              kind: 'data',
              data: {
                skill: 'make_board',
                args: {
                  title: 'Launch plan',
                  cards: [{ text: 'Ship A2A face' }, { text: 'Seed MCP directory' }],
                  connections: [{ from: 0, to: 1, relationship: 'leads_to' }],
                },
              },
            },
          ],
        },
      },
    };
    const res = await fetch(endpoint(node(0)), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${ann.token}` },
      body: JSON.stringify(body),
    });
    const task = ((await res.json()) as any).result;
    expect(task).toMatchObject({ kind: 'task', status: { state: 'completed' }, metadata: { skill: 'make_board' } });
    expect(task.artifacts[0].parts[0]).toMatchObject({ kind: 'file', file: { mimeType: BOARD_TYPE } });
    const file = boardFileOf(task);
    expect(file).toMatchObject({ format: 'muster.board', version: 1, board: { title: 'Launch plan', owner: 'ann' } });
    expect(file.cards.map((c: any) => c.text)).toEqual(['Ship A2A face', 'Seed MCP directory']);
    expect(file.connections).toMatchObject([{ from: file.cards[0].id, to: file.cards[1].id, type: 'leads_to' }]);
    expect(task.history[0].parts[0].data).toEqual(body.params.message.parts[0]!.data); // as KLYPIX named it

    // tasks/get answers the same shapes, through the other node.
    const got = await klypix(node(1), ann.token, 'tasks/get', { id: task.id });
    expect(got.body.result).toMatchObject({
      id: task.id,
      status: { state: 'completed' },
      metadata: { skill: 'make_board' },
    });
    expect(boardFileOf(got.body.result)).toEqual(file);
  });

  it('runs every skill by data part with KLYPIX argument names, a left-out canvas meaning the caller’s brain', async () => {
    await send(node(0), ann.token, [skillPart('make_board', { title: 'Roadmap', cards: [{ text: 'Q1: ship auth' }] })]);
    const added = await send(node(1), ann.token, [
      skillPart('remember', {
        canvas: 'Roadmap',
        cards: [{ text: 'Q2: tokens rotate #auth' }, { text: 'Q3: what about SSO?' }],
        connections: [{ from: 0, to: 1, relationship: 'leads_to' }],
      }),
    ]);
    expect(added.metadata.skill).toBe('remember');
    expect(boardFileOf(added).cards).toHaveLength(3);
    const brain = await send(node(0), ann.token, [
      skillPart('remember', { cards: [{ text: 'Auth uses bearer tokens' }] }),
    ]);
    expect(boardFileOf(brain).board).toMatchObject({ id: 'memory-ann', visibility: 'private' });

    const read = await send(node(1), ann.token, [skillPart('read_canvas', { canvas: 'roadmap' })]);
    expect(read.metadata.skill).toBe('read_canvas');
    expect(dataOf(read).cards.map((c: any) => c.text)).toEqual([
      'Q1: ship auth',
      'Q2: tokens rotate #auth',
      'Q3: what about SSO?',
    ]);
    const listed = await send(node(0), ann.token, [skillPart('list_canvases', {})]);
    expect(dataOf(listed).boards.map((b: any) => b.title)).toEqual(['Memory of ann', 'Roadmap', 'Launch plan']);
    const recalled = await send(node(1), ann.token, [skillPart('recall', { query: 'auth', canvas: 'Roadmap' })]);
    expect(dataOf(recalled).cards.map((c: any) => c.text)).toEqual(['Q2: tokens rotate #auth', 'Q1: ship auth']);
    const insights = await send(node(0), ann.token, [skillPart('brain_insights', { canvas: 'Roadmap' })]);
    expect(insights.metadata.skill).toBe('brain_insights');
    expect(dataOf(insights).openQuestions).toHaveLength(1);
    expect(dataOf(insights).orphans).toHaveLength(1);

    // brain_connect proposes, then draws on {"confirm": true} in the same task.
    await send(node(0), ann.token, [
      skillPart('make_board', {
        title: 'Ideas',
        cards: [{ text: 'cache directory search results' }, { text: 'cache directory search per caller' }],
      }),
    ]);
    const proposed = await send(node(1), ann.token, [skillPart('brain_connect', { canvas: 'Ideas' })]);
    expect(proposed.status.state).toBe('input-required');
    expect(dataOf(proposed).proposal).toHaveLength(1);
    const drawn = await send(node(0), ann.token, [{ kind: 'data', data: { confirm: true } }], { taskId: proposed.id });
    expect(drawn).toMatchObject({
      id: proposed.id,
      status: { state: 'completed' },
      metadata: { skill: 'brain_connect' },
    });
    expect(dataOf(drawn).drawn).toBe(1);
  });

  it('routes free text as the page says, a brief one card per item', async () => {
    const said = async (text: string) => send(node(0), ben.token, [textPart(text)]);
    const made = await said('Make a board: Alpha; Beta; Gamma');
    expect(made.metadata.skill).toBe('make_board');
    expect(boardFileOf(made).cards.map((c: any) => c.text)).toEqual(['Alpha', 'Beta', 'Gamma']);
    const remembered = await said('Remember that we chose Postgres.');
    expect(remembered.metadata.skill).toBe('remember');
    expect(boardFileOf(remembered).cards.map((c: any) => c.text)).toEqual(['we chose Postgres']);
    await send(node(1), ben.token, [skillPart('make_board', { title: 'roadmap', cards: [{ text: 'auth in Q1' }] })]);
    for (const text of ["What's in the roadmap canvas?", 'Summarize the canvas roadmap.']) {
      const read = await said(text);
      expect(read.metadata.skill, text).toBe('read_canvas');
      expect(boardFileOf(read).board.title).toBe('roadmap');
    }
    const recalled = await said('What do we know about auth?');
    expect(recalled.metadata.skill).toBe('recall');
    expect(dataOf(recalled).cards.map((c: any) => c.text)).toEqual(['auth in Q1']);
  });

  it('asks for a write’s missing input with the exact data part to send, and continues that task', async () => {
    const asked = await send(node(0), ann.token, [textPart('Make a board')]);
    expect(asked.status.state).toBe('input-required');
    const { dataPart } = dataOf(asked);
    expect(dataPart.skill).toBe('make_board');
    expect(Object.keys(dataPart.args)).toEqual(['title', 'cards']);
    expect(asked.status.message.parts[0].text).toContain(JSON.stringify(dataPart));

    const done = await send(node(1), ann.token, [{ kind: 'data', data: dataPart }], { taskId: asked.id });
    expect(done).toMatchObject({ id: asked.id, status: { state: 'completed' }, metadata: { skill: 'make_board' } });
    expect(done.history.filter((m: any) => m.role === 'user')).toHaveLength(2);
    expect(boardFileOf(done).board.title).toBe(dataPart.args.title);

    // Plain words answer it too: the brief's items are the cards; a refusal names the words.
    const again = await send(node(0), ann.token, [skillPart('remember', { canvas: 'Roadmap' })]);
    expect(dataOf(again)).toMatchObject({ missing: ['cards'], dataPart: { skill: 'remember' } });
    const tooLong = await klypix(node(1), ann.token, 'message/send', {
      message: message([textPart('x'.repeat(4001))], { taskId: again.id }),
    });
    expect(tooLong.body.error.data[1].fieldViolations[0].field).toBe('params.message.parts[0].text');
    const kept = await send(node(1), ann.token, [textPart('Q4: audit; Q4: docs')], { taskId: again.id });
    expect(kept.status.state).toBe('completed');
    expect(
      boardFileOf(kept)
        .cards.slice(-2)
        .map((c: any) => c.text),
    ).toEqual(['Q4: audit', 'Q4: docs']);
  });

  it('asks again for malformed connections, naming them, and draws them when the follow-up brings them right', async () => {
    const cards = [{ text: 'draft' }, { text: 'review' }];
    const asked = await send(node(0), ann.token, [
      skillPart('make_board', { title: 'Flow', cards, connections: [{ from: 0, to: 7, relationship: 'leads_to' }] }),
    ]);
    expect(asked.status.state).toBe('input-required');
    expect(dataOf(asked)).toMatchObject({
      skill: 'make_board',
      missing: ['connections'],
      dataPart: { skill: 'make_board', args: { connections: [{ from: 0, to: 1, relationship: 'leads_to' }] } },
      wrong: [{ field: 'message.parts[0].data.args.connections[0].to' }],
    });
    const none = await klypix(node(1), ann.token, 'message/send', {
      message: message([skillPart('list_canvases', {})]),
    });
    expect(dataOf(none.body.result).boards.map((b: any) => b.title)).not.toContain('Flow'); // nothing written yet

    const wrongAgain = await send(
      node(1),
      ann.token,
      [skillPart('make_board', { connections: [{ from: 0, relationship: 'leads_to' }] })],
      { taskId: asked.id },
    );
    expect(wrongAgain).toMatchObject({ id: asked.id, status: { state: 'input-required' } });
    expect(dataOf(wrongAgain).wrong[0].field).toBe('message.parts[0].data.args.connections[0].to');

    const drawn = await send(
      node(0),
      ann.token,
      [skillPart('make_board', { connections: [{ from: 0, to: 1, relationship: 'leads_to' }] })],
      { taskId: asked.id },
    );
    expect(drawn).toMatchObject({ id: asked.id, status: { state: 'completed' } });
    expect(boardFileOf(drawn).connections).toHaveLength(1);
  });

  it('keeps evidence and verify on a one-card remember or learn_skill, shows them, and never runs them', async () => {
    const evidence = ['https://example.com/pr/42', 'src/store/postgres/boards.ts:10'];
    const verify = 'rm -rf / # never run: kept as text';
    const kept = await send(node(0), ann.token, [
      skillPart('remember', {
        canvas: 'Roadmap',
        cards: [{ text: 'Recall uses tsvector on PostgreSQL' }],
        evidence,
        verify,
      }),
    ]);
    expect(boardFileOf(kept).cards.at(-1)).toMatchObject({
      text: 'Recall uses tsvector on PostgreSQL',
      evidence,
      verify,
    });
    const read = await send(node(1), ann.token, [skillPart('read_canvas', { canvas: 'Roadmap' })]);
    expect(dataOf(read).cards.at(-1)).toMatchObject({ evidence, verify });
    expect(read.artifacts[0].parts[1].text).toContain('evidence: https://example.com/pr/42');
  });

  it('refuses malformed evidence or verify, and capture fields on more than one card, writing nothing', async () => {
    const before = dataOf(await send(node(0), ann.token, [skillPart('read_canvas', { canvas: 'Roadmap' })])).board
      .cards;
    const refusals: [Record<string, unknown>, string][] = [
      [{ evidence: 'one string' }, 'message.parts[0].data.args.evidence'],
      [{ evidence: [42] }, 'message.parts[0].data.args.evidence[0]'],
      [{ evidence: [] }, 'message.parts[0].data.args.evidence'],
      [{ verify: '' }, 'message.parts[0].data.args.verify'],
      [{ verify: 'x'.repeat(1001) }, 'message.parts[0].data.args.verify'],
    ];
    for (const [capture, field] of refusals) {
      const res = await klypix(node(1), ann.token, 'message/send', {
        message: message([skillPart('remember', { canvas: 'Roadmap', cards: [{ text: 'a claim' }], ...capture })]),
      });
      expect(res.body.error?.code, JSON.stringify(capture)).toBe(-32602);
      expect(res.body.error.data[1].fieldViolations[0].field).toBe(`params.${field}`);
    }
    const two = await klypix(node(0), ann.token, 'message/send', {
      message: message([skillPart('remember', { cards: [{ text: 'a' }, { text: 'b' }], verify: 'check' })]),
    });
    expect(two.body.error).toMatchObject({ code: -32602 });
    expect(two.body.error.message).toContain('one card');
    const after = dataOf(await send(node(1), ann.token, [skillPart('read_canvas', { canvas: 'Roadmap' })])).board.cards;
    expect(after).toBe(before);
  });

  it('learns a skill as a card that recall puts first, with its capture fields', async () => {
    await send(node(0), ben.token, [
      skillPart('remember', { cards: [{ text: 'deploy notes: deploy on Fridays is risky #deploy' }] }),
    ]);
    const learned = await send(node(1), ben.token, [
      skillPart('learn_skill', {
        title: 'Deploy safely',
        text: 'To deploy, drain the node first',
        verify: 'curl /health answers ok',
        evidence: ['docs/deploy.md'],
      }),
    ]);
    expect(learned).toMatchObject({ status: { state: 'completed' }, metadata: { skill: 'learn_skill' } });
    expect(boardFileOf(learned).cards.at(-1)).toMatchObject({ kind: 'skill', title: 'Deploy safely' });
    const recalled = await send(node(0), ben.token, [skillPart('recall', { query: 'deploy #deploy' })]);
    const found = dataOf(recalled).cards;
    expect(found[0]).toMatchObject({ kind: 'skill', title: 'Deploy safely', verify: 'curl /health answers ok' });
    expect(found.length).toBeGreaterThan(1); // the tagged card comes after it
  });

  it('takes the missing args bare in a follow-up, in KLYPIX names', async () => {
    const asked = await send(node(1), ann.token, [skillPart('read_canvas', {})]);
    const wrong = await klypix(node(0), ann.token, 'message/send', {
      message: message([{ kind: 'data', data: { canvas: 7 } }], { taskId: asked.id }),
    });
    expect(wrong.body.error.data[1].fieldViolations[0].field).toBe('params.message.parts[0].data.canvas');
    const read = await send(node(0), ann.token, [{ kind: 'data', data: { canvas: 'Roadmap' } }], { taskId: asked.id });
    expect(read).toMatchObject({ id: asked.id, status: { state: 'completed' }, metadata: { skill: 'read_canvas' } });
    expect(read.history.at(-1).parts[0].data).toEqual({ canvas: 'Roadmap' });
  });

  it('cancels a call waiting for input; a settled one is not cancelable', async () => {
    const asked = await send(node(0), ann.token, [skillPart('read_canvas', {})]);
    expect(dataOf(asked)).toMatchObject({ missing: ['canvas'], dataPart: { skill: 'read_canvas' } });
    const canceled = await klypix(node(1), ann.token, 'tasks/cancel', { id: asked.id });
    expect(canceled.body.result).toMatchObject({ id: asked.id, status: { state: 'canceled' } });
    const settled = await send(node(0), ann.token, [skillPart('list_canvases', {})]);
    const again = await klypix(node(0), ann.token, 'tasks/cancel', { id: settled.id });
    expect(again.body.error.code).toBe(-32002);
  });

  it('refuses what it cannot do in KLYPIX terms: no token, an unknown or unoffered skill, an unknown method', async () => {
    const anonymous = await klypix(node(0), undefined, 'message/send', {
      message: message([skillPart('list_canvases', {})]),
    });
    expect([anonymous.status, anonymous.body.error.code]).toEqual([401, -32010]);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer/);
    for (const skill of ['search_all_brains', 'brain_sync', 'board.create']) {
      const res = await klypix(node(1), ann.token, 'message/send', { message: message([skillPart(skill, {})]) });
      expect(res.body.error, skill).toMatchObject({ code: -32602 });
      expect(res.body.error.data[0].metadata.hint).toContain('make_board, remember, learn_skill');
    }
    const unknownArg = await klypix(node(0), ann.token, 'message/send', {
      message: message([skillPart('read_canvas', { canvas: 5 })]),
    });
    expect(unknownArg.body.error.data[1].fieldViolations[0].field).toBe('params.message.parts[0].data.args.canvas');
    const method = await klypix(node(1), ann.token, 'tasks/list', {});
    expect(method.body.error).toMatchObject({ code: -32601 });
    const route = await fetch(`${endpoint(node(0))}nowhere`);
    expect([route.status, ((await route.json()) as any).error.code]).toEqual([404, -32601]);
  });
});
