// A stock @a2a-js/sdk 0.3.14 A2A server: express + A2AExpressApp + DefaultRequestHandler, with an
// AgentExecutor of our own, the way the SDK's README shows. It knows nothing of Muster.
import { createServer, type Server } from 'node:http';
import { randomUUID } from 'node:crypto';
import express from 'express';
import type { AgentCard, Message, TaskStatusUpdateEvent } from 'sdk03';
import {
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from 'sdk03/server';
import { A2AExpressApp } from 'sdk03/server/express';

export interface Seen {
  taskId: string;
  contextId: string;
  text: string;
  followUp: boolean;
}

const textOf = (m: Message) =>
  m.parts
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join(' ')
    .trim();
const now = () => new Date().toISOString();

/** Reads the first word: "ask" asks for input, "slow" works until canceled, anything else is answered. */
class ScriptedExecutor implements AgentExecutor {
  readonly seen: Seen[] = [];
  private readonly canceled = new Set<string>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId, userMessage } = ctx;
    const text = textOf(userMessage);
    const followUp = ctx.task !== undefined;
    this.seen.push({ taskId, contextId, text, followUp });
    const agentMessage = (t: string): Message => ({
      kind: 'message',
      role: 'agent',
      messageId: randomUUID(),
      parts: [{ kind: 'text', text: t }],
      taskId,
      contextId,
    });
    const status = (
      state: TaskStatusUpdateEvent['status']['state'],
      final: boolean,
      t?: string,
    ): TaskStatusUpdateEvent => ({
      kind: 'status-update',
      taskId,
      contextId,
      final,
      status: { state, timestamp: now(), ...(t ? { message: agentMessage(t) } : {}) },
    });
    if (!followUp)
      bus.publish({
        kind: 'task',
        id: taskId,
        contextId,
        status: { state: 'submitted', timestamp: now() },
        history: [userMessage],
      });
    bus.publish(status('working', false, 'the SDK endpoint is on it'));
    if (followUp) {
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: { artifactId: 'reply', name: 'Reply', parts: [{ kind: 'text', text: `SDK endpoint got: ${text}` }] },
      });
      bus.publish(status('completed', true, `thanks for "${text}"`));
    } else if (/^ask\b/.test(text)) {
      bus.publish(status('input-required', true, 'Which chapter?'));
    } else if (/^slow\b/.test(text)) {
      for (let i = 0; i < 300 && !this.canceled.has(taskId); i++) await new Promise((r) => setTimeout(r, 100));
      if (!this.canceled.has(taskId)) bus.publish(status('completed', true, 'slow work done'));
    } else {
      await new Promise((r) => setTimeout(r, 200)); // a moment in WORKING, so a stream can see it
      bus.publish({
        kind: 'artifact-update',
        taskId,
        contextId,
        artifact: {
          artifactId: 'answer',
          name: 'Answer',
          parts: [{ kind: 'text', text: `SDK endpoint read: ${text}` }],
        },
      });
      bus.publish(status('completed', true, 'done by the SDK endpoint'));
    }
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.canceled.add(taskId);
    const task = this.seen.find((s) => s.taskId === taskId);
    bus.publish({
      kind: 'status-update',
      taskId,
      contextId: task?.contextId ?? '',
      final: true,
      status: { state: 'canceled', timestamp: now() },
    });
    bus.finished();
  }
}

export interface SdkEndpoint {
  base: string;
  /** The card object the server was built with (its configuration). */
  card: AgentCard;
  seen: Seen[];
  canceledRequests(): string[];
  close(): Promise<void>;
}

export async function startSdkEndpoint(name: string): Promise<SdkEndpoint> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  const card: AgentCard = {
    name,
    description: 'A stock @a2a-js/sdk 0.3.14 agent, for interop tests.',
    url: base,
    protocolVersion: '0.3.0',
    version: '1.0.0',
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      { id: 'script', name: 'Scripted answers', description: 'Answers, asks, or works slowly.', tags: ['interop'] },
    ],
  };
  const executor = new ScriptedExecutor();
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  const app = new A2AExpressApp(handler).setupRoutes(express());
  server.on('request', app);
  return {
    base,
    card,
    seen: executor.seen,
    canceledRequests: () => [...(executor as unknown as { canceled: Set<string> }).canceled],
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
