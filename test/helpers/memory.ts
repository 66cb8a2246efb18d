/**
 * The memory base as its tests call it: a hub with three agents (ann, bob, cy) that each carry the
 * base's URL, and calls over raw JSON-RPC 1.0 that answer the task, or the error of a refusal.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { registerAll, rpc, startTestHub, type Registered, type TestHub } from './hub.js';

export const BOARD_TYPE = 'application/vnd.muster.board+json';

/** A registered agent and the memory base it calls. */
export interface MemoryCaller extends Registered {
  memory: string;
}

export interface MemoryHub {
  hub: TestHub;
  /** The memory base's URL. */
  memory: string;
  ann: MemoryCaller;
  bob: MemoryCaller;
  cy: MemoryCaller;
}

export async function startMemoryHub(): Promise<MemoryHub> {
  const hub = await startTestHub();
  try {
    const memory = `${hub.url}memory/`;
    const [ann, bob, cy] = (await registerAll(hub, 'ann', 'bob', 'cy')).map((agent) => ({ ...agent, memory }));
    return { hub, memory, ann: ann!, bob: bob!, cy: cy! };
  } catch (error) {
    await hub.destroy(); // the file's afterAll never learns of a hub this did not return
    throw error;
  }
}

export const dataMessage = (data: unknown, extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ data }],
  ...extra,
});

/** One memory call over raw JSON-RPC 1.0: answers the task, or throws with the error. */
export async function call(who: MemoryCaller, message: unknown, configuration: Record<string, unknown> = {}) {
  const res = await rpc(who.memory, 'SendMessage', { message, configuration }, { token: who.token });
  if (!res.body.result) throw Object.assign(new Error(JSON.stringify(res.body)), { body: res.body });
  return res.body.result.task;
}

export const skill = (who: MemoryCaller, id: string, args: unknown, configuration?: Record<string, unknown>) =>
  call(who, dataMessage({ skill: id, args }), configuration);

/** The error of a call that must be refused. */
export async function refused(who: MemoryCaller, message: unknown) {
  const res = await rpc(who.memory, 'SendMessage', { message }, { token: who.token });
  expect(res.body.error).toBeDefined();
  return res.body.error;
}

export const resultData = (task: any) =>
  task.artifacts.find((a: any) => a.artifactId === 'result').parts.find((p: any) => p.data).data;
