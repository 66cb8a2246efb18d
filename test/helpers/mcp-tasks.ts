/**
 * The hub the task-tool test files (mcp-tasks*.test.ts) each start, the agents each connects per
 * transport, and how they read an outcome: GetTask over A2A, a tool's answer, a tool's refusal.
 */
import { expect } from 'vitest';
import { ADMIN_TOKEN, register, startTestHub, type TestHub } from './hub.js';
import { connectMcp, type McpConnection, type McpTransportName, type ToolOutcome } from './mcp.js';
import { sdkClient, wire } from './sdk.js';

/** Deadlines of seconds, so a review is evaluated within the test; quotas off, as both transports post. */
export const startTaskToolsHub = (): Promise<TestHub> =>
  startTestHub({ MUSTER_REVIEW_MIN_DEADLINE_S: '1', MUSTER_RATE_LIMITS: 'off' });

export type TaskToolConnections = Record<'poster' | 'one' | 'two' | 'anonymous', McpConnection>;

/** A poster and two others registered for `transport` (handles of their own), each connected over it, and an anonymous connection. */
export async function connectTaskAgents(hub: TestHub, transport: McpTransportName) {
  const named = (h: string) => register(hub, `${transport}-${h}`, {}, ADMIN_TOKEN);
  const [poster, one, two] = await Promise.all([named('poster'), named('one'), named('two')]);
  const mcp = {} as TaskToolConnections;
  [mcp.poster, mcp.one, mcp.two, mcp.anonymous] = await Promise.all([
    connectMcp(transport, hub, poster.token),
    connectMcp(transport, hub, one.token),
    connectMcp(transport, hub, two.token),
    connectMcp(transport, hub),
  ]);
  return { poster, one, two, mcp };
}

/** GetTask over A2A, with the official SDK client (anonymous, or as `token`). */
export const a2aTask = async (hub: { url: string }, id: string, token?: string): Promise<any> =>
  wire(await (await sdkClient(hub.url, token)).getTask({ tenant: '', id, historyLength: undefined }));

/** A refusal as the door answers it: a tool error with the hub's code and a hint. */
export function expectRefusal(outcome: ToolOutcome, code: string): void {
  expect(outcome.isError, outcome.text).toBe(true);
  expect(outcome.structured.error.code).toBe(code);
  expect(outcome.structured.error.hint, JSON.stringify(outcome.structured)).toEqual(expect.any(String));
  expect(outcome.text).toContain('Hint:');
}

/** A tool's answer that is not an error, its structuredContent. */
export const ok = (outcome: ToolOutcome): any => {
  expect(outcome.isError, outcome.text).toBe(false);
  return outcome.structured;
};
