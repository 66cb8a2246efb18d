import * as grpc from '@grpc/grpc-js';
import {
  AgentCard,
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  ListTasksResponse,
  StreamResponse,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { decodeErrorInfo, decodeStatus } from '@a2a-js/sdk/errors/grpc';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, register, rest, startTestHub, type Registered, type TestHub } from './helpers/hub.js';
import { clusterOnPostgres } from './helpers/cluster.js';
import { freePort } from './helpers/nodes.js';
import { testPostgres } from './helpers/postgres.js';
import { restClient } from './helpers/bindings.js';
import { sendRequest, wire } from './helpers/sdk.js';
import { grpcClient } from './helpers/bindings.js';

let hub: TestHub;
let alice: Registered;
let bob: Registered;
const bobBase = () => `${hub.url}agents/bob/`;
const respond = (id: string, body: unknown) => rest(hub, 'POST', `api/tasks/${id}/respond`, { token: bob.token, body });
const events = (list: StreamResponse[]) => list.map((e) => StreamResponse.toJSON(e) as any);
const stateOf = (e: any): string | undefined => e.task?.status?.state ?? e.statusUpdate?.status?.state;

/** A raw refused gRPC call through the SDK's own service definition, to read the status and trailers a client gets. */
function rawRefusal(
  method: 'getTask' | 'sendMessage',
  request: unknown,
  token?: string,
  extra: Record<string, string> = {},
): Promise<grpc.ServiceError> {
  const Client = grpc.makeGenericClientConstructor(A2AService as unknown as grpc.ServiceDefinition, 'A2AService');
  const client = new Client(`127.0.0.1:${hub.grpcPort}`, grpc.credentials.createInsecure()) as any;
  const metadata = new grpc.Metadata();
  if (token) metadata.set('authorization', `Bearer ${token}`);
  for (const [key, value] of Object.entries(extra)) metadata.set(key, value);
  return new Promise((resolve, reject) =>
    client[method](request, metadata, (error: grpc.ServiceError | null) => {
      client.close();
      return error ? resolve(error) : reject(new Error('the call succeeded'));
    }),
  );
}
const rawGetTask = (request: object, token?: string, extra?: Record<string, string>) =>
  rawRefusal('getTask', GetTaskRequest.fromJSON(request), token, extra);

beforeAll(async () => {
  hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1', MUSTER_GRPC_PORT: '0' });
  [alice, bob] = await Promise.all([register(hub, 'alice'), register(hub, 'bob')]);
});
afterAll(() => hub.destroy());

describe('the gRPC binding', () => {
  it('is listed on every card when on, with the base as its tenant', async () => {
    expect(hub.grpcPort).toBeGreaterThan(0);
    const address = `127.0.0.1:${hub.grpcPort}`;
    const hubCard = (await rest(hub, 'GET', '.well-known/agent-card.json')).body;
    expect(hubCard.supportedInterfaces).toContainEqual({
      url: address,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
    });
    const bobCard = (await rest(hub, 'GET', 'agents/bob/.well-known/agent-card.json')).body;
    expect(bobCard.supportedInterfaces).toContainEqual({
      url: address,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      tenant: 'agents/bob',
    });
    const memoryCard = (await rest(hub, 'GET', 'memory/.well-known/agent-card.json')).body;
    expect(memoryCard.supportedInterfaces).toContainEqual({
      url: address,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      tenant: 'memory',
    });
  });

  it('sends, gets, lists and cancels through the SDK gRPC client', async () => {
    const asAlice = await grpcClient(bobBase(), alice.token);
    const sent = wire(await asAlice.sendMessage(sendRequest('Over gRPC', { returnImmediately: true })));
    expect(sent.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(sent.metadata.muster).toEqual({ kind: 'direct', from: 'alice', to: 'bob' });
    await respond(sent.id, { state: 'TASK_STATE_WORKING', message: { parts: [{ text: 'Working' }] } });
    const got = wire(await asAlice.getTask({ tenant: '', id: sent.id, historyLength: 1 }));
    expect(got.status.state).toBe('TASK_STATE_WORKING');
    expect(got.history.map((m: any) => m.parts[0].text)).toEqual(['Working']);
    const listed = ListTasksResponse.toJSON(
      await asAlice.listTasks(ListTasksRequest.fromJSON({ contextId: sent.contextId })),
    ) as any;
    expect(listed.tasks.map((t: any) => t.id)).toEqual([sent.id]);
    const canceled = wire(await asAlice.cancelTask(CancelTaskRequest.fromJSON({ id: sent.id })));
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('streams a send to its end, and resubscribes mid-task', async () => {
    const asAlice = await grpcClient(bobBase(), alice.token);
    const seen: StreamResponse[] = [];
    for await (const event of asAlice.sendMessageStream(sendRequest('Stream over gRPC'))) {
      seen.push(event);
      if (seen.length === 1) {
        const id = (StreamResponse.toJSON(event) as any).task.id as string;
        await respond(id, { state: 'TASK_STATE_WORKING' });
        await respond(id, {
          state: 'TASK_STATE_COMPLETED',
          artifacts: [{ artifactId: 'g1', parts: [{ data: { ok: true } }] }],
        });
      }
    }
    const sent = events(seen);
    expect(sent.map(stateOf).filter(Boolean)).toEqual([
      'TASK_STATE_SUBMITTED',
      'TASK_STATE_WORKING',
      'TASK_STATE_COMPLETED',
    ]);
    expect(sent.find((e) => e.artifactUpdate)?.artifactUpdate.artifact.parts[0].data).toEqual({ ok: true });

    const task = wire(await asAlice.sendMessage(sendRequest('Resubscribe over gRPC', { returnImmediately: true })));
    await respond(task.id, { state: 'TASK_STATE_INPUT_REQUIRED', message: { parts: [{ text: 'Which one?' }] } });
    const again: StreamResponse[] = [];
    for await (const event of asAlice.resubscribeTask({ tenant: '', id: task.id })) {
      again.push(event);
      if (again.length === 1) expect((await respond(task.id, { state: 'TASK_STATE_WORKING' })).status).toBe(200);
      if (again.length === 2)
        await respond(task.id, { state: 'TASK_STATE_FAILED', message: { parts: [{ text: 'Could not' }] } });
    }
    const resumed = events(again);
    expect(resumed[0].task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(resumed.slice(1).map(stateOf)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_FAILED']);
  });

  it('creates, reads, lists and deletes push configs', async () => {
    const asAlice = await grpcClient(bobBase(), alice.token);
    const { id } = wire(await asAlice.sendMessage(sendRequest('Push over gRPC', { returnImmediately: true })));
    const created = TaskPushNotificationConfig.toJSON(
      await asAlice.createTaskPushNotificationConfig(
        TaskPushNotificationConfig.fromJSON({ taskId: id, id: 'g-hook', url: 'http://127.0.0.1:9/never' }),
      ),
    ) as any;
    expect(created).toMatchObject({ taskId: id, id: 'g-hook' });
    expect((await asAlice.getTaskPushNotificationConfig({ tenant: '', taskId: id, id: 'g-hook' })).url).toBe(
      'http://127.0.0.1:9/never',
    );
    expect(
      (
        await asAlice.listTaskPushNotificationConfig({ tenant: '', taskId: id, pageSize: 0, pageToken: '' })
      ).configs.map((c) => c.id),
    ).toEqual(['g-hook']);
    await asAlice.deleteTaskPushNotificationConfig({ tenant: '', taskId: id, id: 'g-hook' });
    expect(
      (await asAlice.listTaskPushNotificationConfig({ tenant: '', taskId: id, pageSize: 0, pageToken: '' })).configs,
    ).toEqual([]);
  });

  it('answers the extended card to a registered caller and UNAUTHENTICATED to an anonymous one', async () => {
    const asAlice = await grpcClient(bobBase(), alice.token);
    const card = AgentCard.toJSON(await asAlice.getAgentCard()) as any;
    expect(card.capabilities.extensions.at(-1).params).toMatchObject({
      caller: { kind: 'agent', handle: 'alice' },
      agent: { handle: 'bob' },
    });
    const anonymous = await grpcClient(bobBase());
    await expect(anonymous.getAgentCard()).rejects.toMatchObject({ status: grpc.status.UNAUTHENTICATED });
  });

  it('refuses an unknown task with NOT_FOUND and an ErrorInfo in grpc-status-details-bin; an unknown tenant and a bad token too', async () => {
    const missing = await rawGetTask({ tenant: 'agents/bob', id: 'no-such-task' }, alice.token);
    expect(missing.code).toBe(grpc.status.NOT_FOUND);
    const status = decodeStatus(missing.metadata.get('grpc-status-details-bin')[0] as Buffer);
    expect(status.code).toBe(grpc.status.NOT_FOUND);
    const info = decodeErrorInfo(status.details[0]!.value);
    expect(info).toMatchObject({ reason: 'TASK_NOT_FOUND', domain: 'a2a-protocol.org' });
    const asAlice = await grpcClient(bobBase(), alice.token);
    await expect(asAlice.getTask({ tenant: '', id: 'no-such-task' })).rejects.toMatchObject({
      name: 'TaskNotFoundError',
    });

    const nowhere = await rawGetTask({ tenant: 'agents/nobody', id: 'x' }, alice.token);
    expect(nowhere.code).toBe(grpc.status.NOT_FOUND);
    const strange = await rawGetTask({ tenant: 'elsewhere/a/b', id: 'x' }, alice.token);
    expect([strange.code, strange.details]).toEqual([grpc.status.NOT_FOUND, "No A2A base 'elsewhere/a/b' at this hub"]);
    const forged = await rawGetTask({ tenant: 'agents/bob', id: 'x' }, 'not-a-token');
    expect(forged.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('an unsupported version and an unsupported operation are UNIMPLEMENTED (A2A 1.0 §5.4), with their ErrorInfo', async () => {
    const reasonOf = (error: grpc.ServiceError) =>
      decodeErrorInfo(decodeStatus(error.metadata.get('grpc-status-details-bin')[0] as Buffer).details[0]!.value)
        .reason;
    const version = await rawGetTask({ tenant: 'agents/bob', id: 'x' }, alice.token, { 'a2a-version': '9.9' });
    expect([version.code, reasonOf(version)]).toEqual([grpc.status.UNIMPLEMENTED, 'VERSION_NOT_SUPPORTED']);
    const asAlice = await grpcClient(bobBase(), alice.token);
    const done = wire(await asAlice.sendMessage(sendRequest('Finish me', { returnImmediately: true })));
    expect((await respond(done.id, { state: 'TASK_STATE_COMPLETED' })).status).toBe(200);
    // A message to a task in a terminal state: the operation is not supported there.
    const late = await rawRefusal(
      'sendMessage',
      { ...sendRequest('Too late', { taskId: done.id }), tenant: 'agents/bob' },
      alice.token,
      { 'a2a-version': '1.0' },
    );
    expect([late.code, reasonOf(late)]).toEqual([grpc.status.UNIMPLEMENTED, 'UNSUPPORTED_OPERATION']);
    expect(late.details).toMatch(/terminal|COMPLETED/i);
  });

  it('the header-less (0.3) card keeps GRPC in supportedInterfaces, not in its 0.3 additionalInterfaces', async () => {
    const card = (await rest(hub, 'GET', 'agents/bob/.well-known/agent-card.json')).body;
    expect(card.protocolVersion).toBe('0.3.0');
    expect(card.supportedInterfaces).toContainEqual({
      url: `127.0.0.1:${hub.grpcPort}`,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      tenant: 'agents/bob',
    });
    expect(card.additionalInterfaces).toEqual([{ url: bobBase(), transport: 'JSONRPC' }]);
  });
});

describe.skipIf(!testPostgres)('the bindings across two nodes of one PostgreSQL database', () => {
  const grpcPorts: number[] = [];
  beforeAll(async () => {
    grpcPorts.push(await freePort(), await freePort());
  });
  const { nodes } = clusterOnPostgres('bindings_two_nodes', ['A', 'B'], (db, _name, i) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, MUSTER_GRPC_PORT: String(grpcPorts[i]) },
    startMs: 30_000,
  }));

  it('a task sent over HTTP+JSON on node A streams over gRPC on node B, and the answer given on A reaches B', async () => {
    const [A, B] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const [sender, target] = [
      await register(A, 'cross-sender', {}, ADMIN_TOKEN),
      await register(A, 'cross-target', {}, ADMIN_TOKEN),
    ];
    const viaRest = await restClient(`${A.url}agents/cross-target/`, sender.token);
    const sent = wire(await viaRest.sendMessage(sendRequest('From A', { returnImmediately: true })));
    const bCard = (await rest(B, 'GET', 'agents/cross-target/.well-known/agent-card.json')).body;
    expect(bCard.supportedInterfaces).toContainEqual({
      url: `127.0.0.1:${grpcPorts[1]}`,
      protocolBinding: 'GRPC',
      protocolVersion: '1.0',
      tenant: 'agents/cross-target',
    });
    const viaGrpc = await grpcClient(`${B.url}agents/cross-target/`, sender.token);
    const seen: StreamResponse[] = [];
    for await (const event of viaGrpc.resubscribeTask({ tenant: '', id: sent.id })) {
      seen.push(event);
      if (seen.length === 1) {
        const answer = (body: unknown) =>
          rest(A, 'POST', `api/tasks/${sent.id}/respond`, { token: target.token, body });
        expect((await answer({ state: 'TASK_STATE_WORKING' })).status).toBe(200);
        expect(
          (await answer({ state: 'TASK_STATE_COMPLETED', message: { parts: [{ text: 'Answered on A' }] } })).status,
        ).toBe(200);
      }
    }
    const got = events(seen);
    expect(got[0].task.id).toBe(sent.id);
    expect(got.slice(1).map(stateOf)).toEqual(['TASK_STATE_WORKING', 'TASK_STATE_COMPLETED']);
    const final = wire(await viaGrpc.getTask({ tenant: '', id: sent.id }));
    expect(final.status.message.parts[0].text).toBe('Answered on A');
  }, 30_000);
});
