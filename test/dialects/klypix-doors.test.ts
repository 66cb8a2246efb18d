/**
 * KLYPIX at /klypix/ beside the hub's other doors: message/stream in the order KLYPIX's page
 * gives (a submitted task, one artifact-update for completed work, one final status-update),
 * acceptedOutputModes honoured in answers and streams, the official SDK (1.3.0, its 0.3
 * compatibility client) finding the card and calling it, and the same boards and tasks natively:
 * a board made here is the board the REST API and the memory base read, and what another agent
 * sees of it here is what it sees there (a private board stays private). On SQLite, and on two
 * PostgreSQL nodes.
 */
import { GetTaskRequest, SendMessageRequest } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
} from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { testDialect } from '../helpers/database.js';
import { rest, rpc, type Registered } from '../helpers/hub.js';
import { openSse } from '../helpers/nodes.js';
import { wire } from '../helpers/sdk.js';
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
} from './klypix-fixture.js';

/** The SDK's client as a 0.3 caller: its compatibility layer reads the 0.3 card and speaks 0.3 JSON-RPC. */
async function sdk03(base: string, token: string) {
  const fetchImpl: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };
  const legacyCompat = { enabled: true };
  const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
  });
  return new ClientFactory(options).createFromUrl(base);
}

/** A memory-base call (A2A 1.0), as a native client makes it. */
const memoryCall = (url: string, token: string, skill: string, args: unknown) =>
  rpc(
    `${url}memory/`,
    'SendMessage',
    { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill, args } }] } },
    { token, headers: { 'a2a-version': '1.0' } },
  );

describe(`KLYPIX at /klypix/ beside the native doors (${testDialect})`, () => {
  const { node } = klypixNodes('dialect_klypix_doors');
  let ann: Registered, ben: Registered;

  beforeAll(async () => {
    ann = await agent(node(0), 'ann');
    ben = await agent(node(1), 'ben');
  });

  it('streams a completed call as a submitted task, one artifact-update with the board file first, then one final status-update', async () => {
    const stream = await openSse(
      endpoint(node(1)),
      'message/stream',
      { message: message([skillPart('make_board', { title: 'Streamed', cards: [{ text: 'one' }, { text: 'two' }] })]) },
      { token: ann.token },
    );
    const events = (await stream.waitEnd()).map((e) => e.data.result);
    expect(events.map((e) => e.kind)).toEqual(['task', 'artifact-update', 'status-update']);
    expect(events[0].status.state).toBe('submitted');
    expect(events[1].artifact.name).toBe('make_board');
    expect(events[1].artifact.parts.map((p: any) => p.kind)).toEqual(['file', 'text', 'data']);
    expect(events[1].artifact.parts[0].file.mimeType).toBe(BOARD_TYPE);
    expect(events[2]).toMatchObject({ status: { state: 'completed' }, final: true });
  });

  it('streams a write missing its input as a submitted task and one final input-required update', async () => {
    const stream = await openSse(
      endpoint(node(0)),
      'message/stream',
      { message: message([skillPart('remember', { canvas: 'Streamed' })]) },
      { token: ann.token },
    );
    const events = (await stream.waitEnd()).map((e) => e.data.result);
    expect(events.map((e) => e.kind)).toEqual(['task', 'status-update']);
    expect(events[1]).toMatchObject({ status: { state: 'input-required' }, final: true });
    expect(events[1].status.message.parts[1].data.dataPart).toMatchObject({ skill: 'remember' });
  });

  it('leaves the file part out when acceptedOutputModes excludes its media type, in answers, streams and tasks/get', async () => {
    const without = { acceptedOutputModes: ['text/plain', 'application/json'] };
    const sent = await send(node(0), ann.token, [skillPart('read_canvas', { canvas: 'Streamed' })], {}, without);
    expect(sent.artifacts[0].parts.map((p: any) => p.kind)).toEqual(['text', 'data']);
    const got = await klypix(node(1), ann.token, 'tasks/get', { id: sent.id });
    expect(got.body.result.artifacts[0].parts.map((p: any) => p.kind)).toEqual(['text', 'data']);
    const stream = await openSse(
      endpoint(node(1)),
      'message/stream',
      { message: message([skillPart('read_canvas', { canvas: 'Streamed' })]), configuration: without },
      { token: ann.token },
    );
    const update = (await stream.waitEnd()).map((e) => e.data.result).find((e) => e.kind === 'artifact-update');
    expect(update.artifact.parts.map((p: any) => p.kind)).toEqual(['text', 'data']);
    const withIt = await send(
      node(1),
      ann.token,
      [skillPart('read_canvas', { canvas: 'Streamed' })],
      {},
      {
        acceptedOutputModes: [BOARD_TYPE],
      },
    );
    expect(boardFileOf(withIt).board.title).toBe('Streamed');
  });

  it('serves the official SDK as a 0.3 client: it finds the card, sends a data part, streams and reads the task', async () => {
    const client = await sdk03(endpoint(node(0)), ben.token);
    const request = (skill: string, args: unknown) =>
      SendMessageRequest.fromJSON({
        message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill, args } }] },
      });
    const made = wire(
      await client.sendMessage(request('make_board', { title: 'SDK board', cards: [{ text: 'from the SDK' }] })),
    );
    expect(made.status.state).toBe('TASK_STATE_COMPLETED');
    expect(made.metadata.skill).toBe('make_board');
    expect(made.artifacts[0].parts[0]).toMatchObject({
      mediaType: BOARD_TYPE,
      filename: 'sdk-board.muster-board.json',
    });
    const got = wire(await client.getTask(GetTaskRequest.fromJSON({ id: made.id })));
    expect(got.artifacts).toEqual(made.artifacts);

    const kinds: string[] = [];
    for await (const event of client.sendMessageStream(request('recall', { query: 'sdk' })))
      kinds.push(event.payload!.$case);
    expect(kinds).toEqual(['task', 'artifactUpdate', 'statusUpdate']);
  });

  it('makes the same board the REST API and the memory base read, and hides a private one from others alike', async () => {
    const made = await send(node(0), ann.token, [
      skillPart('make_board', {
        title: 'Private plans',
        cards: [{ text: 'ours alone' }, { text: 'still ours' }],
        connections: [{ from: 0, to: 1, relationship: 'answers' }],
      }),
    ]);
    const file = boardFileOf(made);
    const byRest = await rest(node(1), 'GET', `api/boards/${file.board.id}`, { token: ann.token });
    expect(byRest.body).toEqual(file);
    const native = await memoryCall(node(1).url, ann.token, 'board.read', { board: file.board.id });
    expect(native.body.result.task.metadata.muster.board).toBe(file.board.id);
    // The KLYPIX task is a memory call natively too: GetTask at the memory base reads it.
    const task = await rpc(
      `${node(0).url}memory/`,
      'GetTask',
      { id: made.id },
      { token: ann.token, headers: { 'a2a-version': '1.0' } },
    );
    expect(task.body.result).toMatchObject({ id: made.id, metadata: { muster: { skill: 'board.create' } } });

    // Ben may not read it: refused alike here, at the memory base and over REST; nor its task.
    const here = await klypix(node(1), ben.token, 'message/send', {
      message: message([skillPart('read_canvas', { canvas: file.board.id })]),
    });
    const there = await memoryCall(node(0).url, ben.token, 'board.read', { board: file.board.id });
    expect(here.body.error.code).toBe(there.body.error.code);
    expect(here.body.error.data[0].reason).toBe('BOARD_NOT_FOUND');
    expect((await rest(node(0), 'GET', `api/boards/${file.board.id}`, { token: ben.token })).status).toBe(404);
    const recalled = await send(node(0), ben.token, [skillPart('recall', { query: 'ours' })]);
    expect(dataOf(recalled).cards).toEqual([]);
    const listed = await send(node(1), ben.token, [skillPart('list_canvases', {})]);
    expect(dataOf(listed).boards.map((b: any) => b.id)).not.toContain(file.board.id);
    const theirTask = await klypix(node(1), ben.token, 'tasks/get', { id: made.id });
    const nativeTask = await rpc(
      `${node(1).url}memory/`,
      'GetTask',
      { id: made.id },
      { token: ben.token, headers: { 'a2a-version': '1.0' } },
    );
    expect([theirTask.body.error.code, nativeTask.body.error.code]).toEqual([-32001, -32001]);

    // Shared with ben, he reads and writes it here as natively.
    const shared = await send(node(0), ann.token, [
      skillPart('make_board', {
        title: 'Shared plans',
        cards: [{ text: 'for ben' }],
        visibility: 'shared',
        sharedWith: ['ben'],
      }),
    ]);
    const id = boardFileOf(shared).board.id;
    const added = await send(node(1), ben.token, [
      skillPart('remember', { canvas: id, cards: [{ text: 'ben was here' }] }),
    ]);
    expect(boardFileOf(added).cards.map((c: any) => c.writtenBy)).toEqual(['a2a:ann', 'a2a:ben']);
    expect((await rest(node(0), 'GET', `api/boards/${id}`, { token: ben.token })).body.cards).toHaveLength(2);
  });
});
