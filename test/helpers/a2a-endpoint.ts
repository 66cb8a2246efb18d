/**
 * An agent's own A2A endpoint, built on the official SDK's server (DefaultRequestHandler behind
 * its express handlers), on 127.0.0.1: it records what it receives and can refuse the first calls.
 */
import express from 'express';
import { listenLocally } from './local-server.js';
import { endpointCard } from './own-endpoint.js';
import type { IncomingHttpHeaders } from 'node:http';
import { AGENT_CARD_PATH, TaskState, type Message } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { register, rest } from './hub.js';

/** `onReceive` runs for each task forwarded to it (as an agent would start on it), with the JSON-RPC body it came in. */
export async function startA2AEndpoint(options: { failFirst?: number; onReceive?: (body: any) => void } = {}) {
  const received: { headers: IncomingHttpHeaders; body: any; message: Message }[] = [];
  let challenge = '';
  let calls = 0;
  const card = endpointCard('An agent that runs its own A2A server', 'JSONRPC', '1.0', {
    streaming: false,
    pushNotifications: false,
  });
  const pending: { headers: IncomingHttpHeaders; body: any }[] = [];
  const executor: AgentExecutor = {
    async execute(ctx, bus) {
      const request = pending.shift()!;
      received.push({ ...request, message: ctx.userMessage });
      options.onReceive?.(request.body);
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
          artifacts: [],
          history: [ctx.userMessage],
          metadata: undefined,
        }),
      );
    },
    async cancelTask() {},
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = express();
  app.get('/.well-known/muster-challenge', (_req, res) => void res.type('text/plain').send(challenge));
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: { getAgentCard: async () => card } as never }));
  app.use('/a2a', express.json(), (req, res, next) => {
    // Only sends start work; the hub also reads the tasks it forwarded (GetTask) while it follows them.
    if (req.body?.method !== 'SendMessage') return next();
    calls += 1;
    if (calls <= (options.failFirst ?? 0)) return void res.status(503).json({ error: 'not yet' });
    pending.push({ headers: req.headers, body: req.body });
    next();
  });
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  const { base, close } = await listenLocally(app);
  card.supportedInterfaces[0]!.url = `${base}a2a`;
  return {
    base,
    received,
    serveChallenge: (value: string) => void (challenge = value),
    close,
  };
}

/** Registers `handle` with `endpoint` as its own A2A endpoint on the hub (or node), proves control of it and turns forwarding on. */
export async function forwardingAgent(
  hub: { url: string },
  handle: string,
  endpoint: { base: string; serveChallenge: (value: string) => void },
  adminToken?: string,
) {
  const agent = await register(hub, handle, { endpoint: endpoint.base }, adminToken);
  const challenge = await rest(hub, 'POST', `api/agents/${handle}/endpoint/challenge`, { token: agent.token });
  endpoint.serveChallenge(challenge.body.challenge);
  const verified = await rest(hub, 'POST', `api/agents/${handle}/endpoint/verify`, { token: agent.token });
  const on = await rest(hub, 'PUT', `api/agents/${handle}/forwarding`, { token: agent.token, body: { enabled: true } });
  if (verified.status !== 200 || on.status !== 200)
    throw new Error(`forwarding for ${handle}: ${JSON.stringify([verified.body, on.body])}`);
  return agent;
}
