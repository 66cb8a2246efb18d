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
import { LIMITS } from '../wire/limits.js';

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
function artifactBody(
  task: StoredTask,
  said: Extract<Mirrored, { kind: 'artifact' }>,
): Record<string, unknown> | undefined {
  const held = task.artifacts.some((a) => a.artifactId === said.artifact['artifactId']);
  if (said.append ? !held : artifactShown(task, said.artifact)) return undefined;
  const pieces = said.append
    ? piecesFrom(said.artifact, 0, true, said.lastChunk)
    : piecesOf(task, said.artifact, said.lastChunk);
  return { chunks: pieces.slice(0, LIMITS.artifactsPerWrite) };
}

/**
 * The task's news in one write: its artifacts first, in pieces a write may carry (HubWrites
 * writes again while there is more), and its state and status message with the last of them, so a
 * final state never lands before the artifacts it ends with.
 */
function taskBody(task: StoredTask, remote: RemoteTask): Record<string, unknown> | undefined {
  const { state } = task.record;
  const pieces = remote.artifacts.filter((a) => !artifactShown(task, a)).flatMap((a) => piecesOf(task, a, true));
  const chunks = pieces.slice(0, LIMITS.artifactsPerWrite);
  if (pieces.length > chunks.length) return { chunks };
  const message =
    remote.statusMessage && !shown(task, remote.statusMessage) ? messageOf(remote.statusMessage) : undefined;
  let next = remote.state && MIRRORED[remote.state];
  if (next === state && !message) next = undefined; // the same state again says nothing new
  // Asked again for input, with the question the sender has answered already: a read from before the answer reached the endpoint.
  if (next === 'TASK_STATE_INPUT_REQUIRED' && state === 'TASK_STATE_WORKING' && !message) next = undefined;
  if (!next && message) next = state === 'TASK_STATE_SUBMITTED' ? 'TASK_STATE_WORKING' : state; // a message needs a state beside it
  if (!next && chunks.length === 0) return undefined;
  return Object.assign(
    {},
    next ? { state: next } : {},
    message ? { message } : {},
    chunks.length > 0 ? { chunks } : {},
  );
}

/**
 * A whole artifact as the chunks that bring the hub's copy up to it: from the parts the hub
 * holds already when they begin it (an earlier write got that far), else replacing it.
 */
function piecesOf(task: StoredTask, artifact: Loose, lastChunk: boolean): Record<string, unknown>[] {
  const held = task.artifacts.find((a) => a.artifactId === artifact['artifactId']);
  const parts = Array.isArray(artifact['parts']) ? (artifact['parts'] as unknown[]) : [];
  const begun =
    held !== undefined && held.parts.length < parts.length && sameParts(held.parts, parts.slice(0, held.parts.length));
  return begun ? piecesFrom(artifact, held.parts.length, true, lastChunk) : piecesFrom(artifact, 0, false, lastChunk);
}

/** An artifact's parts from `from` on, a message's worth at a time; the first piece joins the held artifact when `append`. */
function piecesFrom(artifact: Loose, from: number, append: boolean, lastChunk: boolean): Record<string, unknown>[] {
  const parts = Array.isArray(artifact['parts']) ? (artifact['parts'] as unknown[]) : [];
  const pieces: Record<string, unknown>[] = [];
  for (let at = from; at === from || at < parts.length; at += LIMITS.parts) {
    const last = at + LIMITS.parts >= parts.length;
    pieces.push(
      Object.assign(artifactOf(artifact), {
        parts: parts.slice(at, at + LIMITS.parts),
        append: append || at > from,
        lastChunk: last && lastChunk,
      }),
    );
  }
  return pieces;
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
