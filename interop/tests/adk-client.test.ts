// @google/adk 2.0.0 as a client: a RemoteA2AAgent, run by an ADK InMemoryRunner, whose remote
// agent is a Muster agent (`muster attach`) at its base URL on the hub.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryRunner, RemoteA2AAgent, type A2AStreamEventData } from '@google/adk';
import * as c03 from 'sdk03/client';
import { attach, type Attached } from '../lib/attach.js';
import { client12 } from '../lib/clients.js';
import { handle, register, startHub, type Agent, type Hub } from '../lib/hub.js';

let hub: Hub;
let alice: Agent;
let bob: Agent;
let bobAgent: Attached;

/** A RemoteA2AAgent for bob, authenticating as alice through the A2A SDK's AuthenticationHandler. */
function remoteBob(): { agent: RemoteA2AAgent; raw: A2AStreamEventData[] } {
  const raw: A2AStreamEventData[] = [];
  const fetchImpl = c03.createAuthenticatingFetchWithRetry(fetch, {
    headers: async () => ({ Authorization: `Bearer ${alice.token}` }),
    shouldRetryWithHeaders: async () => undefined,
  });
  const clientFactory = new c03.ClientFactory(
    c03.ClientFactoryOptions.createFrom(c03.ClientFactoryOptions.default, {
      transports: [new c03.JsonRpcTransportFactory({ fetchImpl })],
    }),
  );
  const agent = new RemoteA2AAgent({
    name: 'bob_at_muster',
    description: 'bob, a Muster agent',
    agentCard: bob.a2a, // a URL: ADK resolves the card from it (the SDK's resolver adds .well-known/agent-card.json)
    clientFactory: clientFactory as never,
    afterRequestCallbacks: [(_ctx, resp) => void raw.push(resp)],
  });
  return { agent, raw };
}

async function run(runner: InMemoryRunner, sessionId: string, text: string) {
  const events = [];
  for await (const e of runner.runAsync({
    userId: 'interop',
    sessionId,
    newMessage: { role: 'user', parts: [{ text }] },
  }))
    events.push(e);
  return events;
}
const texts = (events: Array<{ content?: { parts?: Array<{ text?: string }> } }>) =>
  events
    .flatMap((e) => e.content?.parts ?? [])
    .map((p) => p.text ?? '')
    .filter(Boolean);

beforeAll(async () => {
  hub = await startHub();
  alice = await register(hub, handle('alice'));
  bob = await register(hub, handle('bob'));
  bobAgent = await attach(hub.url, bob.handle, bob.token);
});
afterAll(async () => {
  await bobAgent?.stop();
  await hub?.stop();
});

describe('@google/adk 2.0.0 RemoteA2AAgent → Muster agent (muster attach)', () => {
  it('discovers bob from his base URL, streams the task and gives the answer as ADK events', async () => {
    const { agent, raw } = remoteBob();
    const runner = new InMemoryRunner({ agent, appName: 'interop' });
    const session = await runner.sessionService.createSession({ appName: 'interop', userId: 'interop' });
    const events = await run(runner, session.id, 'hello from adk');
    expect(
      events.every((e) => !e.errorMessage),
      JSON.stringify(events.map((e) => e.errorMessage)),
    ).toBe(true);
    expect(texts(events).join('\n')).toContain('echo: hello from adk');
    // What the A2A client received: the task, then its updates, ending in a final completed status.
    expect(raw[0]).toMatchObject({ kind: 'task' });
    expect(raw.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } });
    // The task is at the hub, sent by alice to bob, completed.
    const taskId = (raw[0] as { id: string }).id;
    const asAlice = await client12(bob.a2a, alice.token);
    const task = (await asAlice.getTask({ tenant: '', id: taskId } as never)) as { status?: { state: number } };
    expect(task.status?.state).toBe(3 /* TASK_STATE_COMPLETED */);
  });

  it('a second turn in the same ADK session continues the same A2A context', async () => {
    const { agent, raw } = remoteBob();
    const runner = new InMemoryRunner({ agent, appName: 'interop' });
    const session = await runner.sessionService.createSession({ appName: 'interop', userId: 'interop' });
    await run(runner, session.id, 'first turn');
    const firstContext = (raw[0] as { contextId: string }).contextId;
    raw.length = 0;
    const events = await run(runner, session.id, 'second turn');
    expect(texts(events).join('\n')).toContain('echo: second turn');
    expect((raw[0] as { contextId: string }).contextId).toBe(firstContext);
  });

  it("an agent question (input-required) reaches ADK as the remote agent's turn", async () => {
    const { agent, raw } = remoteBob();
    const runner = new InMemoryRunner({ agent, appName: 'interop' });
    const session = await runner.sessionService.createSession({ appName: 'interop', userId: 'interop' });
    const events = await run(runner, session.id, 'ask please');
    expect(texts(events).join('\n')).toContain('Which chapter?');
    expect(raw.at(-1)).toMatchObject({ kind: 'status-update', final: true, status: { state: 'input-required' } });
  });
});
