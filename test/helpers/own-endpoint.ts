/**
 * An agent's own A2A server on 127.0.0.1, built on the official SDK (DefaultRequestHandler behind
 * its express handlers), that does real work on what the hub forwards: it answers in the protocol
 * its card names (1.0 JSON-RPC, 1.0 HTTP+JSON, or 0.3 JSON-RPC through the SDK's compat layer) and
 * proves control the way a stock server can, by configuration: the hub's challenge in its card.
 */
import express from 'express';
import { listenLocally } from './local-server.js';
import { AGENT_CARD_PATH, Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { register, rest } from './hub.js';

export type Protocol = 'JSONRPC/1.0' | 'HTTP+JSON/1.0' | 'JSONRPC/0.3';

export interface EndpointOptions {
  streams?: boolean;
  /** The card served says it streams, though the server refuses to (a card out of step with its server). */
  claimsStreams?: boolean;
  /** It sends push notifications (the SDK's own sender) to configs its clients set. */
  push?: boolean;
}

/**
 * How the agent works a task, by the first word of its text: `ask` wants more input first (and
 * completes with the answer), `hold` works until canceled, `reply` answers with a plain Message,
 * `many` completes with more artifacts, and more parts in each, than one write at the hub takes;
 * anything else is worked and completed with an artifact.
 */
/** The card an SDK server of a test is built with (its interface's URL set once it listens). */
export const endpointCard = (
  description: string,
  binding: string,
  version: string,
  offers: { streaming: boolean; pushNotifications: boolean },
): AgentCard => ({
  name: 'Own agent',
  description,
  version: '1.0.0',
  supportedInterfaces: [{ url: '', protocolBinding: binding, tenant: '', protocolVersion: version }],
  provider: undefined,
  capabilities: { ...offers, extensions: [], extendedAgentCard: false },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [],
  signatures: [],
});

export async function startOwnEndpoint(protocol: Protocol = 'JSONRPC/1.0', endpointOptions: EndpointOptions = {}) {
  const { streams = true, claimsStreams = streams, push = false } = endpointOptions;
  const received: Message[] = [];
  const [binding, version] = protocol.split('/') as [string, string];
  const card = endpointCard('An agent that runs its own A2A server and works what the hub forwards', binding, version, {
    streaming: streams,
    pushNotifications: push,
  });
  const executor: AgentExecutor = {
    async execute(ctx, bus) {
      received.push(ctx.userMessage);
      await work(ctx, bus);
    },
    async cancelTask(taskId, bus) {
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: '',
          status: status(TaskState.TASK_STATE_CANCELED),
          metadata: undefined,
        }),
      );
      bus.finished();
    },
  };
  const tasks = new InMemoryTaskStore();
  const handler = new DefaultRequestHandler(card, tasks, executor);
  const legacy = version === '0.3' ? { legacyCompat: { enabled: true } } : {};
  const app = express();
  const served = () =>
    Object.assign({}, card, { capabilities: Object.assign({}, card.capabilities, { streaming: claimsStreams }) });
  app.use(
    `/${AGENT_CARD_PATH}`,
    agentCardHandler({ agentCardProvider: { getAgentCard: async () => served() } as never, ...legacy }),
  );
  const options = { requestHandler: handler, userBuilder: UserBuilder.noAuthentication, ...legacy };
  app.use('/a2a', binding === 'HTTP+JSON' ? restHandler(options) : jsonRpcHandler(options));
  const { base, close } = await listenLocally(app);
  card.supportedInterfaces[0]!.url = `${base}a2a`;
  return {
    base,
    card,
    received,
    /** The state of one of its tasks, as its own store holds it (the SDK's enum). */
    stateOf: async (id: string) => (await tasks.load(id, {} as never))?.status?.state,
    /** Configuration only: the extension the hub's challenge gave, in the card's capabilities. */
    carry: (extension: { uri: string; description?: string; params: Record<string, unknown> }) =>
      void card.capabilities!.extensions.push({
        uri: extension.uri,
        description: extension.description ?? '',
        required: false,
        params: extension.params,
      }),
    close,
  };
}

/** How many artifacts a `many` task ends with, and how many parts each holds: past what one write at the hub takes (10 and 10). */
export const MANY = 12;

const text = (value: string): Part => ({
  content: { $case: 'text', value },
  metadata: undefined,
  filename: '',
  mediaType: '',
});
const status = (state: TaskState, words?: string, taskId = '', contextId = '') => ({
  state,
  timestamp: new Date().toISOString(),
  message: words === undefined ? undefined : agentMessage(words, taskId, contextId),
});
const agentMessage = (words: string, taskId: string, contextId: string): Message => ({
  messageId: `m-${Math.random().toString(36).slice(2)}`,
  contextId,
  taskId,
  role: Role.ROLE_AGENT,
  parts: [text(words)],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const textOf = (message: Message): string =>
  message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join(' ');

async function work(ctx: RequestContext, bus: ExecutionEventBus) {
  const { taskId, contextId } = ctx;
  const words = textOf(ctx.userMessage);
  if (words.startsWith('reply')) {
    bus.publish(AgentEvent.message(agentMessage(`replied: ${words}`, '', contextId)));
    return bus.finished();
  }
  const publish = (state: TaskState, said?: string) =>
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: status(state, said, taskId, contextId),
        metadata: undefined,
      }),
    );
  if (!ctx.task) {
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [],
        history: [ctx.userMessage],
        metadata: undefined,
      }),
    );
  }
  if (words.startsWith('ask')) {
    publish(TaskState.TASK_STATE_INPUT_REQUIRED, 'Which format do you want?');
    return bus.finished();
  }
  publish(TaskState.TASK_STATE_WORKING, 'On it');
  if (words.startsWith('hold')) return; // worked until canceled
  // The answer comes a moment later, as real work would: the hub must follow the task to see it.
  await new Promise((r) => setTimeout(r, 300));
  const artifact = (artifactId: string, parts: Part[]) =>
    AgentEvent.artifactUpdate({
      taskId,
      contextId,
      artifact: { artifactId, name: artifactId, description: '', parts, metadata: undefined, extensions: [] },
      append: false,
      lastChunk: true,
      metadata: undefined,
    });
  if (words.startsWith('many')) {
    for (let a = 0; a < MANY; a++)
      bus.publish(
        artifact(
          `part-${a}`,
          Array.from({ length: MANY }, (_, p) => text(`${a}.${p}`)),
        ),
      );
  } else bus.publish(artifact('result', [text(`worked: ${words}`)]));
  publish(TaskState.TASK_STATE_COMPLETED, `done: ${words}`);
  bus.finished();
}

/** Registers `handle` with the server as its endpoint, proves control through the card alone, and turns forwarding on. */
export async function ownEndpointAgent(
  hub: { url: string },
  handle: string,
  endpoint: Awaited<ReturnType<typeof startOwnEndpoint>>,
  named: 'base' | 'card' = 'base',
) {
  const agent = await register(hub, handle, {
    endpoint: named === 'base' ? endpoint.base : `${endpoint.base}${AGENT_CARD_PATH}`,
  });
  const challenge = await rest(hub, 'POST', `api/agents/${handle}/endpoint/challenge`, { token: agent.token });
  endpoint.carry(challenge.body.extension);
  const verified = await rest(hub, 'POST', `api/agents/${handle}/endpoint/verify`, { token: agent.token });
  const on = await rest(hub, 'PUT', `api/agents/${handle}/forwarding`, { token: agent.token, body: { enabled: true } });
  if (verified.status !== 200 || on.status !== 200)
    throw new Error(`forwarding for ${handle}: ${JSON.stringify([verified.body, on.body])}`);
  return agent;
}
