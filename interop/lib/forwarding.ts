// Forwarding to an agent's own A2A endpoint (the contract in the brief of this suite):
//  1. POST /api/agents {handle, endpoint}                      → 201 {token}
//  2. POST /api/agents/{h}/endpoint/challenge (the agent)       → {challenge, url, expiresAt, card, extension: {uri, params: {challenge}}}
//  3. the owner puts `extension`, as given, into its server's card under capabilities.extensions
//     (configuration only: the card object the server was built with; no route for Muster)
//  4. POST /api/agents/{h}/endpoint/verify                      → 200 {enabled: false, available: true, …}
//     PUT /api/agents/{h}/forwarding {"enabled": true}          → 200
//  5. a sender's task to /agents/{h}/ is forwarded in the endpoint's own version and binding; the hub
//     follows the remote task and mirrors status, messages and artifacts into its own task.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SendMessageRequest, StreamResponse, Task } from 'sdk12';
import type { Client } from 'sdk12/client';
import type { AgentCard } from 'sdk03';
import { startAdkEndpoint } from './adk.js';
import { client03, client12 } from './clients.js';
import { handle, register, rest, until, type Agent, type Hub } from './hub.js';
import { startSdkEndpoint, type Seen } from './sdk-endpoint.js';

type Json = any;
const textOf = (m: Json): string => (m?.parts ?? []).map((p: Json) => p.text ?? '').join('');

export interface Nodes {
  /** Where the sender sends, streams and reads. */
  sender: Hub;
  /** Where the endpoint's owner registers, proves control and switches forwarding on. */
  owner: Hub;
  /** Another node to read the task from (the same hub on SQLite). */
  reader: Hub;
}

interface Endpoint {
  base: string;
  card: AgentCard;
  seen?: Seen[];
  close(): Promise<void>;
}

interface Kind {
  name: string;
  start(name: string): Promise<Endpoint>;
  /** Text the endpoint puts in an artifact for a plain message. */
  answers(text: string): string;
  /** Checks the question the endpoint asked (the hub's status message) and builds the sender's answer's parts. */
  answerQuestion(question: Json, answer: string): Json[];
  /** Text the endpoint puts in an artifact once it has the answer. */
  answered(answer: string): string;
  /** The endpoint's own final status message, when it gives one. */
  finalMessage?: string;
}

export const SDK_ENDPOINT: Kind = {
  name: 'stock @a2a-js/sdk 0.3.14 express server',
  start: (name) => startSdkEndpoint(name),
  answers: (text) => `SDK endpoint read: ${text}`,
  answerQuestion: (question, answer) => {
    expect(question.parts.map((p: Json) => p.text).join('')).toBe('Which chapter?');
    return [{ text: answer }];
  },
  answered: (answer) => `SDK endpoint got: ${answer}`,
  finalMessage: 'done by the SDK endpoint',
};

export const ADK_ENDPOINT: Kind = {
  name: '@google/adk 2.0.0 toA2a server',
  start: (name) => startAdkEndpoint(name.replace(/-/g, '_')),
  answers: (text) => `ADK agent read: ${text}`,
  answerQuestion: (question, answer) => {
    // ADK asks with its long-running tool's function call, as a data part marked by metadata.
    const call = question.parts.find((p: Json) => p.data?.name === 'ask_user');
    expect(call, `an ask_user function call among ${JSON.stringify(question.parts)}`).toBeDefined();
    const typeKey = Object.keys(call.metadata ?? {}).find((k) => call.metadata[k] === 'function_call');
    expect(typeKey, `the part's metadata marks it a function call: ${JSON.stringify(call.metadata)}`).toBeDefined();
    return [
      {
        data: { id: call.data.id, name: 'ask_user', response: { answer } },
        metadata: { [typeKey!]: 'function_response' },
      },
    ];
  },
  answered: (answer) => `ADK agent got the answer: ${JSON.stringify({ answer })}`,
};

const describeStep = (what: string, res: { status: number; body: unknown }, expected: string) =>
  new Error(`${what} answered HTTP ${res.status} ${JSON.stringify(res.body)}; expected ${expected}`);

/** Steps 2–4 of the contract, each checked; the first deviation throws with the request and answer. */
async function enableForwarding(
  hub: Hub,
  agent: Agent,
  endpoint: Endpoint,
): Promise<Record<string, { status: number; body: Json }>> {
  const path = `api/agents/${agent.handle}`;
  const challenge = await rest(hub, 'POST', `${path}/endpoint/challenge`, agent.token);
  const c = challenge.body;
  if (
    challenge.status !== 200 ||
    typeof c?.challenge !== 'string' ||
    !c?.extension?.uri ||
    c.extension?.params?.challenge !== c.challenge
  ) {
    throw describeStep(
      `POST /${path}/endpoint/challenge`,
      challenge,
      '200 {challenge, url, expiresAt, card, extension: {uri, params: {challenge}}}',
    );
  }
  // Configuration of the endpoint: the extension, exactly as given, in the card the server was built with.
  endpoint.card.capabilities.extensions = [...(endpoint.card.capabilities.extensions ?? []), c.extension];
  const verify = await rest(hub, 'POST', `${path}/endpoint/verify`, agent.token);
  if (verify.status !== 200 || verify.body?.available !== true || verify.body?.enabled !== false) {
    throw describeStep(
      `POST /${path}/endpoint/verify (card ${JSON.stringify(endpoint.card.capabilities)})`,
      verify,
      '200 {enabled: false, available: true, …}',
    );
  }
  const on = await rest(hub, 'PUT', `${path}/forwarding`, agent.token, { enabled: true });
  if (on.status !== 200 || on.body?.enabled !== true)
    throw describeStep(`PUT /${path}/forwarding {"enabled":true}`, on, '200 {enabled: true, …}');
  return { challenge, verify, on };
}

export function forwardingScenarios(store: string, nodes: () => Nodes, kind: Kind): void {
  describe(`forwarding on ${store} to a ${kind.name}`, () => {
    let endpoint: Endpoint;
    let alice: Agent;
    let owner: Agent;
    let steps: Record<string, { status: number; body: Json }>;
    let sender: Client;

    const request = (parts: Json[], opts: { taskId?: string; contextId?: string; returnImmediately?: boolean } = {}) =>
      SendMessageRequest.fromJSON({
        message: {
          messageId: randomUUID(),
          role: 'ROLE_USER',
          parts,
          ...(opts.taskId ? { taskId: opts.taskId, contextId: opts.contextId } : {}),
        },
        configuration: {
          acceptedOutputModes: ['text/plain', 'application/json'],
          ...(opts.returnImmediately ? { returnImmediately: true } : {}),
        },
      });
    const send = async (parts: Json[], opts: Parameters<typeof request>[1] = {}): Promise<Json> => {
      const r = await sender.sendMessage(request(parts, opts));
      if (!('status' in r)) throw new Error(`expected a Task, got a Message: ${JSON.stringify(r)}`);
      return Task.toJSON(r as Task);
    };
    const get = async (id: string, client = sender): Promise<Json> =>
      Task.toJSON(await client.getTask({ tenant: '', id } as never));
    const settled = (id: string, states: string[], client = sender) =>
      until(
        `the hub's task ${id} in ${states.join('|')}`,
        async () => {
          const t = await get(id, client);
          return states.includes(t.status.state) ? t : undefined;
        },
        25_000,
      );
    const artifactTexts = (task: Json): string[] =>
      (task.artifacts ?? []).flatMap((a: Json) => a.parts.map((p: Json) => p.text ?? JSON.stringify(p.data)));
    const remoteTaskId = (task: Json, text: string): string | undefined =>
      task.metadata?.muster?.forwarding?.remoteTaskId ??
      endpoint.seen?.find((s) => s.text === text && !s.followUp)?.taskId;

    // The set-up runs once; if the hub refuses a step, every scenario fails with that step's
    // request and answer (none is skipped).
    let setUp: Promise<void>;
    const ready = () => setUp;
    beforeAll(() => {
      setUp = setUpOnce();
      setUp.catch(() => undefined);
    });
    const setUpOnce = async () => {
      const n = nodes();
      const h = handle(`fw-${kind === SDK_ENDPOINT ? 'sdk' : 'adk'}`);
      endpoint = await kind.start(h);
      alice = await register(n.sender, handle('alice'));
      owner = await register(n.owner, h, { endpoint: endpoint.base });
      sender = await client12(new URL(`agents/${h}/`, n.sender.url).href, alice.token);
      steps = await enableForwarding(n.owner, owner, endpoint);
    };
    afterAll(async () => {
      await endpoint?.close();
    });

    it('proves control of the endpoint through its card extension and switches forwarding on', async () => {
      await ready();
      const c = steps['challenge']!.body;
      expect(c.url).toBeTruthy();
      expect(Date.parse(c.expiresAt)).toBeGreaterThan(Date.now());
      expect(c.card).toBeTruthy();
      expect(steps['verify']!.body).toMatchObject({ enabled: false, available: true });
      const state = await rest(nodes().sender, 'GET', `api/agents/${owner.handle}/forwarding`, owner.token);
      expect(state.status).toBe(200);
      expect(state.body).toMatchObject({ enabled: true, available: true });
    });

    it("the sender reads the endpoint's answer with GetTask (on either node)", async () => {
      await ready();
      const text = `hello endpoint ${randomUUID().slice(0, 8)}`;
      const sent = await send([{ text }], { returnImmediately: true });
      const done = await settled(sent.id, [
        'TASK_STATE_COMPLETED',
        'TASK_STATE_FAILED',
        'TASK_STATE_CANCELED',
        'TASK_STATE_REJECTED',
      ]);
      expect(done.status.state, JSON.stringify(done)).toBe('TASK_STATE_COMPLETED');
      expect(artifactTexts(done)).toContain(kind.answers(text));
      expect(remoteTaskId(done, text), `the remote task's id in ${JSON.stringify(done.metadata)}`).toBeTruthy();
      if (kind.finalMessage) expect(textOf(done.status.message), JSON.stringify(done.status)).toBe(kind.finalMessage);
      const elsewhere = await client12(new URL(`agents/${owner.handle}/`, nodes().reader.url).href, alice.token);
      const there = await get(sent.id, elsewhere);
      expect(there.status.state).toBe('TASK_STATE_COMPLETED');
      expect(artifactTexts(there)).toContain(kind.answers(text));
    });

    it("the sender streams the endpoint's answer (SendStreamingMessage)", async () => {
      await ready();
      const text = `stream endpoint ${randomUUID().slice(0, 8)}`;
      const events: Json[] = [];
      for await (const e of sender.sendMessageStream(request([{ text }]))) events.push(StreamResponse.toJSON(e));
      expect(events[0]).toHaveProperty('task');
      const last = events.at(-1);
      expect(last.statusUpdate?.status?.state, JSON.stringify(events)).toBe('TASK_STATE_COMPLETED');
      const streamed = events
        .filter((e) => e.artifactUpdate)
        .flatMap((e) => e.artifactUpdate.artifact.parts.map((p: Json) => p.text));
      expect(streamed).toContain(kind.answers(text));
    });

    it("a blocking SendMessage answers with the endpoint's finished answer", async () => {
      await ready();
      const text = `block endpoint ${randomUUID().slice(0, 8)}`;
      const done = await send([{ text }]);
      expect(done.status.state, JSON.stringify(done)).toBe('TASK_STATE_COMPLETED');
      expect(artifactTexts(done)).toContain(kind.answers(text));
    });

    it("a 0.3 sender (@a2a-js/sdk 0.3.14, blocking message/send and message/stream) gets the endpoint's answer too", async () => {
      await ready();
      const c = await client03(new URL(`agents/${owner.handle}/`, nodes().sender.url).href, alice.token);
      const text = `legacy sender ${randomUUID().slice(0, 8)}`;
      const msg03 = (t: string) => ({
        kind: 'message' as const,
        messageId: randomUUID(),
        role: 'user' as const,
        parts: [{ kind: 'text' as const, text: t }],
      });
      const done = (await c.sendMessage({ message: msg03(text), configuration: { blocking: true } })) as Json;
      expect(done.status.state, JSON.stringify(done)).toBe('completed');
      expect(artifactTexts(done)).toContain(kind.answers(text));
      const events: Json[] = [];
      for await (const e of c.sendMessageStream({ message: msg03(`${text} streamed`) })) events.push(e);
      expect(events.at(-1), JSON.stringify(events)).toMatchObject({
        kind: 'status-update',
        final: true,
        status: { state: 'completed' },
      });
      expect(
        events.filter((e) => e.kind === 'artifact-update').flatMap((e) => e.artifact.parts.map((p: Json) => p.text)),
      ).toContain(kind.answers(`${text} streamed`));
    });

    it('input-required round trip through the endpoint: the endpoint asks, the sender answers on the hub task', async () => {
      await ready();
      const text = `ask about ${randomUUID().slice(0, 8)}`;
      const asked = await send([{ text }]);
      expect(asked.status.state, JSON.stringify(asked)).toBe('TASK_STATE_INPUT_REQUIRED');
      const parts = kind.answerQuestion(asked.status.message, 'Chapter 3');
      const done = await send(parts, { taskId: asked.id, contextId: asked.contextId });
      expect(done.id).toBe(asked.id);
      expect(done.status.state, JSON.stringify(done)).toBe('TASK_STATE_COMPLETED');
      expect(artifactTexts(done)).toContain(kind.answered('Chapter 3'));
      const remote = remoteTaskId(done, text);
      if (endpoint.seen) {
        // The follow-up reached the endpoint's own task, not a new one.
        const followUp = endpoint.seen.find((s) => s.followUp && s.text === 'Chapter 3');
        expect(followUp, JSON.stringify(endpoint.seen)).toBeDefined();
        expect(followUp!.taskId).toBe(remote);
      }
    });

    it("a cancel on the hub's task reaches the remote task", async () => {
      await ready();
      // The SDK endpoint cancels a task it is working on; ADK's executor cannot cancel a run, so its
      // task is canceled while it waits for input.
      const text =
        kind === SDK_ENDPOINT ? `slow work ${randomUUID().slice(0, 8)}` : `ask then cancel ${randomUUID().slice(0, 8)}`;
      const sent = await send([{ text }], { returnImmediately: true });
      const open = await settled(
        sent.id,
        kind === SDK_ENDPOINT ? ['TASK_STATE_WORKING'] : ['TASK_STATE_INPUT_REQUIRED'],
      );
      const remote = remoteTaskId(open, text);
      expect(remote, `the remote task's id in ${JSON.stringify(open.metadata)}`).toBeTruthy();
      const canceled = Task.toJSON(await sender.cancelTask({ tenant: '', id: sent.id } as never));
      expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
      const atEndpoint = await client03(endpoint.base);
      const remoteTask = await until(
        `the endpoint's task ${remote} to be canceled`,
        async () => {
          const t = await atEndpoint.getTask({ id: remote! });
          return t.status.state === 'canceled' ? t : undefined;
        },
        15_000,
      );
      expect(remoteTask.status.state).toBe('canceled');
      expect((await get(sent.id)).status.state).toBe('TASK_STATE_CANCELED');
    });
  });
}
