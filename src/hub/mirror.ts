/**
 * What an agent's own endpoint said of its task, as the target's `respond` to the hub's copy:
 * only what the hub's task does not show yet, so following the endpoint again and again adds
 * nothing twice. The body then passes every check any agent's answer passes.
 */
import { z } from 'zod';
import { isTerminal } from '../a2a/states.js';
import { partSchema } from '../a2a/schemas.js';
import type { TaskState } from '../a2a/types.js';
import type { Loose, RemoteEvent, RemoteTask } from '../delivery/remote/answers.js';
import type { StoredTask } from '../store/store.js';

/** The endpoint's state as the target may respond it: the states a respond can name. */
const MIRRORED: Partial<Record<TaskState, TaskState>> = {
  TASK_STATE_WORKING: 'TASK_STATE_WORKING',
  TASK_STATE_INPUT_REQUIRED: 'TASK_STATE_INPUT_REQUIRED',
  TASK_STATE_AUTH_REQUIRED: 'TASK_STATE_INPUT_REQUIRED',
  TASK_STATE_COMPLETED: 'TASK_STATE_COMPLETED',
  TASK_STATE_FAILED: 'TASK_STATE_FAILED',
  TASK_STATE_REJECTED: 'TASK_STATE_REJECTED',
  // The hub's task was not canceled by its sender (that ends it here first): to the sender it failed.
  TASK_STATE_CANCELED: 'TASK_STATE_FAILED',
};

const parts = z.array(partSchema);

/** What the endpoint said that can be mirrored: its task or a change to it, or a Message. */
export type Mirrored = Extract<RemoteEvent, { kind: 'task' | 'message' | 'status' | 'artifact' }>;

/** The respond body that brings what the endpoint said into `task`; undefined when the task shows it all already. */
export function mirrorBody(task: StoredTask, said: Mirrored): Record<string, unknown> | undefined {
  const { state } = task.record;
  if (isTerminal(state)) return undefined;
  switch (said.kind) {
    case 'message': {
      const message = messageOf(said.message);
      return state === 'TASK_STATE_SUBMITTED' ? { reply: message } : { state: 'TASK_STATE_COMPLETED', message };
    }
    case 'artifact':
      return artifactBody(task, said);
    case 'status':
      return taskBody(task, Object.assign({ id: '', artifacts: [] }, said));
    case 'task':
      return taskBody(task, said.task);
  }
}

/**
 * A piece of an artifact as it streamed. An appended piece whose artifact the hub does not hold
 * (the stream began after its start) waits: the task the next subscription begins with has it whole.
 */
function artifactBody(task: StoredTask, said: Extract<Mirrored, { kind: 'artifact' }>): Record<string, unknown> | undefined {
  const held = task.artifacts.some((a) => a.artifactId === said.artifact['artifactId']);
  if (said.append ? !held : artifactShown(task, said.artifact)) return undefined;
  return { chunks: [Object.assign(artifactOf(said.artifact), { append: said.append, lastChunk: said.lastChunk })] };
}

function taskBody(task: StoredTask, remote: RemoteTask): Record<string, unknown> | undefined {
  const { state } = task.record;
  const message = remote.statusMessage && !shown(task, remote.statusMessage) ? messageOf(remote.statusMessage) : undefined;
  const chunks = remote.artifacts.filter((a) => !artifactShown(task, a)).map((a) => Object.assign(artifactOf(a), { append: false, lastChunk: true }));
  let next = remote.state && MIRRORED[remote.state];
  if (next === state && !message) next = undefined; // the same state again says nothing new
  if (!next && message) next = state === 'TASK_STATE_SUBMITTED' ? 'TASK_STATE_WORKING' : state; // a message needs a state beside it
  if (!next && chunks.length === 0) return undefined;
  return Object.assign({}, next ? { state: next } : {}, message ? { message } : {}, chunks.length > 0 ? { chunks } : {});
}

/** The words a failure of the forward leaves on the task. */
export const failureBody = (words: string) => ({ state: 'TASK_STATE_FAILED', message: { parts: [{ text: words }] } });

const messageOf = (m: Loose) => pick(m, ['messageId', 'parts', 'metadata']);
const artifactOf = (a: Loose) => pick(a, ['artifactId', 'name', 'description', 'parts', 'metadata']);

function pick(from: Loose, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

/** A message the task holds already: by its id, or, without one, the same parts as its last agent message. */
function shown(task: StoredTask, message: Loose): boolean {
  if (typeof message['messageId'] === 'string') return task.history.some((m) => m.messageId === message['messageId']);
  const last = [...task.history].reverse().find((m) => m.role === 'ROLE_AGENT');
  return last !== undefined && sameParts(last.parts, message['parts']);
}

function artifactShown(task: StoredTask, artifact: Loose): boolean {
  const held = task.artifacts.find((a) => a.artifactId === artifact['artifactId']);
  return held !== undefined && sameParts(held.parts, artifact['parts']);
}

/** Parts compared as the hub stores them: both read through the one part schema. */
function sameParts(held: unknown, sent: unknown): boolean {
  const read = parts.safeParse(sent);
  return read.success && JSON.stringify(parts.parse(held)) === JSON.stringify(read.data);
}
