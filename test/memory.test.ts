/**
 * Memory boards end to end (the KLYPIX way of working): board skills the hub performs at its
 * memory base, called by data part and in plain words, with the official SDK client and raw
 * JSON-RPC. Runs on SQLite, and on PostgreSQL under MUSTER_TEST_PG.
 */
import { SendMessageRequest, StreamResponse } from '@a2a-js/sdk';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { openSse } from './helpers/nodes.js';
import { sdkClient, wire } from './helpers/sdk.js';

let hub: TestHub;
let ann: Registered, bob: Registered, cy: Registered;
const memory = () => `${hub.url}memory/`;
const BOARD_TYPE = 'application/vnd.muster.board+json';

const dataMessage = (data: unknown, extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ data }],
  ...extra,
});
const textMessage = (text: string, extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text }],
  ...extra,
});

/** One memory call over raw JSON-RPC 1.0: answers the task, or throws with the error. */
async function call(who: Registered, message: unknown, configuration: Record<string, unknown> = {}) {
  const res = await rpc(memory(), 'SendMessage', { message, configuration }, { token: who.token });
  if (!res.body.result) throw Object.assign(new Error(JSON.stringify(res.body)), { body: res.body });
  return res.body.result.task;
}
const skill = (who: Registered, id: string, args: unknown, configuration?: Record<string, unknown>) =>
  call(who, dataMessage({ skill: id, args }), configuration);
/** The error of a call that must be refused. */
async function refused(who: Registered, message: unknown) {
  const res = await rpc(memory(), 'SendMessage', { message }, { token: who.token });
  expect(res.body.error).toBeDefined();
  return res.body.error;
}

const resultData = (task: any) =>
  task.artifacts.find((a: any) => a.artifactId === 'result').parts.find((p: any) => p.data).data;
const resultText = (task: any) =>
  task.artifacts.find((a: any) => a.artifactId === 'result').parts.find((p: any) => p.text).text;
const boardFileOf = (task: any) => {
  const part = task.artifacts?.find((a: any) => a.artifactId === 'board')?.parts[0];
  return part && { ...part, file: JSON.parse(Buffer.from(part.raw, 'base64').toString('utf8')) };
};

beforeAll(async () => {
  hub = await startTestHub();
  [ann, bob, cy] = await registerAll(hub, 'ann', 'bob', 'cy');
});
afterAll(() => hub.destroy());

describe('the memory base', () => {
  it('serves its card: JSON-RPC 1.0 and 0.3, HTTP+JSON, streaming, the bearer scheme, one skill per board skill with modes and an example', async () => {
    const card = (await rest(hub, 'GET', 'memory/.well-known/agent-card.json', { headers: { 'a2a-version': '1.0' } }))
      .body;
    expect(card.supportedInterfaces).toEqual([
      { url: memory(), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: memory(), protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: memory(), protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
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
    const sdk = await sdkClient(memory(), ann.token); // the SDK reads the card and talks to the base
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
    const res = await rpc(memory(), 'SendMessage', { message: dataMessage({ skill: 'board.list', args: {} }) });
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
    const found = async (who: Registered) =>
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
    expect((await rpc(memory(), 'GetTask', { id: task.id }, { token: bob.token })).body.error.data[0].reason).toBe(
      'TASK_NOT_FOUND',
    );
    expect((await rpc(memory(), 'GetTask', { id: task.id }, { token: ann.token })).body.result.id).toBe(task.id);
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
      memory(),
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

describe('streams', () => {
  it('SendStreamingMessage: the task, one artifact update per artifact, exactly one terminal status update', async () => {
    const sdk = await sdkClient(memory(), ann.token);
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
      memory(),
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
