/**
 * Memory boards end to end (the KLYPIX way of working), how the board skills are called and
 * answer: the memory base's card, each skill by data part and in plain words, with the official
 * SDK client and raw JSON-RPC, and over streams. Runs on SQLite, and on PostgreSQL under
 * MUSTER_TEST_PG; who may read and write, and what is refused: memory-guards.test.ts.
 */
import { SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
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
import { openSse } from './helpers/nodes.js';
import { sdkClient, wire } from './helpers/sdk.js';

let hub: TestHub;
let memory: string;
let ann: MemoryCaller, bob: MemoryCaller;

const textMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

const resultText = (task: any) =>
  task.artifacts.find((a: any) => a.artifactId === 'result').parts.find((p: any) => p.text).text;
const boardFileOf = (task: any) => {
  const part = task.artifacts?.find((a: any) => a.artifactId === 'board')?.parts[0];
  return part && { ...part, file: JSON.parse(Buffer.from(part.raw, 'base64').toString('utf8')) };
};

beforeAll(async () => {
  ({ hub, memory, ann, bob } = await startMemoryHub());
});
afterAll(() => hub.destroy());

describe('the memory base', () => {
  it('serves its card: JSON-RPC 1.0 and 0.3, HTTP+JSON, streaming, the bearer scheme, one skill per board skill with modes and an example', async () => {
    const card = (await rest(hub, 'GET', 'memory/.well-known/agent-card.json', { headers: { 'a2a-version': '1.0' } }))
      .body;
    expect(card.supportedInterfaces).toEqual([
      { url: memory, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: memory, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: memory, protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
    ]);
    expect(card.capabilities.streaming).toBe(true);
    expect(card.securitySchemes.bearer.httpAuthSecurityScheme.scheme).toBe('Bearer');
    expect(card.skills.map((s: any) => s.id)).toEqual([
      'board.create',
      'board.remember',
      'board.learn',
      'board.recall',
      'board.read',
      'board.list',
      'board.insights',
      'board.connect',
    ]);
    for (const s of card.skills) {
      expect(s.description.length).toBeGreaterThan(20);
      expect(s.inputModes).toContain('application/json');
      expect(JSON.parse(s.examples[0]).skill).toBe(s.id);
    }
    expect(card.skills.find((s: any) => s.id === 'board.read').outputModes).toContain(BOARD_TYPE);
    const sdk = await sdkClient(memory, ann.token); // the SDK reads the card and talks to the base
    const made = wire(
      await sdk.sendMessage(
        SendMessageRequest.fromJSON({
          message: dataMessage({ skill: 'board.create', args: { title: 'Through the SDK', cards: ['one card'] } }),
        }),
      ),
    );
    expect(made.status.state).toBe('TASK_STATE_COMPLETED');
    expect(made.metadata.muster).toMatchObject({ kind: 'memory', board: expect.any(String) });
  });

  it('a call needs an agent token', async () => {
    const res = await rpc(memory, 'SendMessage', { message: dataMessage({ skill: 'board.list', args: {} }) });
    expect(res.body.error.data[0].reason).toBe('UNAUTHENTICATED');
  });
});

describe('skills by data part', () => {
  it('board.create makes a board and answers it as a file part; board.remember appends, keeping every card and its id', async () => {
    const made = await skill(ann, 'board.create', {
      title: 'Launch plan',
      cards: [
        'Ship the A2A face #launch',
        { text: 'Seed the directory', title: 'Directory', tags: ['growth'], author: 'Planner Bot!' },
      ],
      connections: [{ from: 0, to: 1, type: 'leads_to' }],
    });
    expect(made.status.state).toBe('TASK_STATE_COMPLETED');
    const id = made.metadata.muster.board;
    expect(resultData(made).board).toMatchObject({
      id,
      title: 'Launch plan',
      owner: 'ann',
      visibility: 'private',
      cards: 2,
    });
    const file = boardFileOf(made);
    expect(file).toMatchObject({ mediaType: BOARD_TYPE, filename: 'launch-plan.muster-board.json' });
    expect(file.file).toMatchObject({
      format: 'muster.board',
      version: 1,
      board: { id, title: 'Launch plan', owner: 'ann' },
    });
    const [first, second] = file.file.cards;
    expect(first).toMatchObject({
      position: 0,
      text: 'Ship the A2A face #launch',
      tags: ['launch'],
      writtenBy: 'a2a:ann',
    });
    expect(second).toMatchObject({
      title: 'Directory',
      tags: ['growth'],
      claimedBy: 'planner-bot',
      writtenBy: 'a2a:ann',
    });
    expect(file.file.connections).toEqual([
      expect.objectContaining({ from: first.id, to: second.id, type: 'leads_to' }),
    ]);

    const added = await skill(ann, 'board.remember', {
      board: 'Launch plan',
      cards: ['We chose PostgreSQL for many nodes #decision'],
    });
    const after = boardFileOf(added).file;
    expect(after.cards.map((c: any) => c.id).slice(0, 2)).toEqual([first.id, second.id]);
    expect(after.cards).toHaveLength(3);
    expect(resultText(added)).toContain('now holds 3 cards');
  });

  it('board.recall ranks by words and #tags across readable boards; board.read, board.list and board.insights read', async () => {
    await skill(ann, 'board.create', {
      title: 'Auth notes',
      cards: ['Tokens are hashed with SHA-256 #security', 'Who rotates tokens?', 'Sessions last a day'],
      connections: [{ from: 2, to: 0, type: 'related' }],
    });
    const recalled = await skill(ann, 'board.recall', { query: 'tokens #security', limit: 5 });
    const cards = resultData(recalled).cards;
    expect(cards[0].text).toBe('Tokens are hashed with SHA-256 #security');
    expect(cards.map((c: any) => c.text)).toContain('Who rotates tokens?');
    expect(cards[0].board.title).toBe('Auth notes');

    const read = await skill(ann, 'board.read', { board: 'auth notes' });
    expect(resultData(read).cards.map((c: any) => c.text)).toEqual([
      'Tokens are hashed with SHA-256 #security',
      'Who rotates tokens?',
      'Sessions last a day',
    ]);
    expect(boardFileOf(read).file.board.title).toBe('Auth notes');
    const listed = resultData(await skill(ann, 'board.list', {}));
    expect(listed.boards.map((b: any) => b.title)).toEqual(expect.arrayContaining(['Auth notes', 'Launch plan']));
    const insights = resultData(await skill(ann, 'board.insights', { board: 'Auth notes' }));
    const ids = resultData(read).cards.map((c: any) => c.id);
    expect(insights.hubs.map((h: any) => h.card).sort()).toEqual([ids[0], ids[2]].sort());
    expect(insights.orphans).toEqual([ids[1]]);
    expect(insights.openQuestions).toEqual([ids[1]]);
  });

  it('board.connect proposes and asks; {"confirm": true} with the same taskId draws; anything else leaves the board as it was', async () => {
    await skill(ann, 'board.create', {
      title: 'Graph',
      cards: ['postgres replication lag alarms', 'replication lag on postgres nodes', 'lunch menu'],
    });
    const proposed = await skill(ann, 'board.connect', { board: 'Graph' });
    expect(proposed.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const proposal = proposed.status.message.parts.find((p: any) => p.data).data.proposal;
    expect(proposal).toHaveLength(1);
    const declined = await skill(ann, 'board.connect', { board: 'Graph' });
    const left = await call(ann, dataMessage({ confirm: false }, { taskId: declined.id }));
    expect(left.status.state).toBe('TASK_STATE_COMPLETED');
    expect(resultData(await skill(ann, 'board.read', { board: 'Graph' })).connections).toEqual([]);
    const drawn = await call(ann, dataMessage({ confirm: true }, { taskId: proposed.id }));
    expect(drawn.id).toBe(proposed.id);
    expect(drawn.status.state).toBe('TASK_STATE_COMPLETED');
    expect(resultData(await skill(ann, 'board.read', { board: 'Graph' })).connections).toEqual([
      { from: proposal[0].from, to: proposal[0].to, type: 'related' },
    ]);
  });

  it('a write that lacks input asks for it; a follow-up with the same taskId resumes the same task, history kept', async () => {
    const asked = await skill(ann, 'board.remember', { cards: ['Deploys go out on Tuesdays'] });
    expect(asked.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(asked.status.message.parts[0].text).toContain('needs board');
    const resumed = await call(ann, dataMessage({ board: 'Launch plan' }, { taskId: asked.id }));
    expect(resumed.id).toBe(asked.id);
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
    expect(resumed.history.length).toBeGreaterThanOrEqual(2);
    expect(resultText(resumed)).toContain('Added 1 card to "Launch plan"');
    const again = await refused(ann, dataMessage({ board: 'Launch plan' }, { taskId: asked.id }));
    expect(again.data[0].reason).toBe('UNSUPPORTED_OPERATION');
  });

  it('without the board media type in acceptedOutputModes, no file part is sent', async () => {
    const read = await skill(
      ann,
      'board.read',
      { board: 'Launch plan' },
      { acceptedOutputModes: ['text/plain', 'application/json'] },
    );
    expect(read.status.state).toBe('TASK_STATE_COMPLETED');
    expect(boardFileOf(read)).toBeUndefined();
    expect(
      boardFileOf(await skill(ann, 'board.read', { board: 'Launch plan' }, { acceptedOutputModes: [BOARD_TYPE] })),
    ).toBeDefined();
  });
});

describe('free text', () => {
  it('routes the documented phrasings; text that fits nothing asks for the exact data part', async () => {
    const remembered = await call(bob, textMessage('Remember that the staging database is called ember.'));
    expect(remembered.status.state).toBe('TASK_STATE_COMPLETED');
    expect(resultData(remembered).board).toMatchObject({ title: 'Memory of bob', visibility: 'private' });
    await call(bob, textMessage('Remember that backups run at 02:00'));
    const recalled = await call(bob, textMessage('What do we know about ember?'));
    expect(resultData(recalled).cards.map((c: any) => c.text)).toEqual(['the staging database is called ember']);
    const made = await call(bob, textMessage('Make a board: Alpha; Beta; Gamma'));
    expect(resultData(made).board.cards).toBe(3);
    const titled = await call(bob, textMessage('Make a board called Roadmap: Q1 ship; Q2 scale'));
    expect(resultData(titled).board).toMatchObject({ title: 'Roadmap', cards: 2 });
    const read = await call(bob, textMessage("What's in the Roadmap board?"));
    expect(resultData(read).cards.map((c: any) => c.text)).toEqual(['Q1 ship', 'Q2 scale']);
    expect(resultData(await call(bob, textMessage('List my boards'))).boards.map((b: any) => b.title)).toEqual(
      expect.arrayContaining(['Roadmap', 'Memory of bob']),
    );
    const lost = await call(bob, textMessage('Lorem ipsum dolor'));
    expect(lost.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(lost.status.message.parts[0].text).toContain('{"skill":"board.recall"');
    const resumed = await call(bob, dataMessage({ skill: 'board.list', args: {} }, { taskId: lost.id }));
    expect(resumed.status.state).toBe('TASK_STATE_COMPLETED');
  });
});

describe('streams', () => {
  it('SendStreamingMessage: the task, one artifact update per artifact, exactly one terminal status update', async () => {
    const sdk = await sdkClient(memory, ann.token);
    const events: any[] = [];
    for await (const event of sdk.sendMessageStream(
      SendMessageRequest.fromJSON({ message: dataMessage({ skill: 'board.read', args: { board: 'Launch plan' } }) }),
    ))
      events.push(StreamResponse.toJSON(event));
    expect(events.map((e) => Object.keys(e)[0])).toEqual(['task', 'artifactUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(events[0].task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(events.slice(1, 3).map((e) => e.artifactUpdate.artifact.artifactId)).toEqual(['result', 'board']);
    expect(events[3].statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('0.3 message/stream: the same lifecycle, final: true on the one terminal status update', async () => {
    const stream = await openSse(
      memory,
      'message/stream',
      {
        message: {
          kind: 'message',
          messageId: randomUUID(),
          role: 'user',
          parts: [{ kind: 'data', data: { skill: 'board.list', args: {} } }],
        },
      },
      { token: ann.token },
    );
    const events = (await stream.waitEnd()).map((e) => (e.data as any).result);
    expect(events.map((e) => e.kind)).toEqual(['task', 'artifact-update', 'status-update']);
    expect(events[0].status.state).toBe('submitted');
    expect(events.at(-1)).toMatchObject({ final: true, status: { state: 'completed' } });
  });
});
