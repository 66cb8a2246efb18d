import { v7 as uuidv7 } from 'uuid';
import { dropUndefined } from '../a2a/schemas.js';
import type { Artifact, JsonObject, Message, StreamResponse, Task } from '../a2a/types.js';
import type { Hold, StoredTask, TaskRecord, TaskWrite } from '../store/store.js';
import type { Change, Opening, Settling } from './kind.js';
import { partsCheck } from '../identity/media-modes.js';
import { isoTime } from '../wire/iso-time.js';

// Hot paths copy with Object.assign, not `{ ...x, more }`: on Node 20's V8 every property after a
// leading spread in a literal takes a slow runtime path (~0.5 us each; see docs/performance-history.md).
const stamp = (m: Message, record: TaskRecord): Message =>
  Object.assign({}, m, { taskId: record.id, contextId: record.contextId });

/**
 * The fields of an Opening that openingWrite reads: one added to Opening fails to compile until it
 * is placed in openingWrite or named among those it leaves (a type, not a rest pattern, which
 * copies the Opening on every send).
 */
type Placed =
  | 'messages'
  | 'quotas'
  | 'dueAt'
  | 'id'
  | 'kind'
  | 'contextId'
  | 'visibility'
  | 'state'
  | 'statusMessage'
  | 'sender'
  | 'target'
  | 'metadata'
  | 'rank'
  | 'openKey'
  | 'settles'
  | 'unlessPaused'
  | 'partsFor'
  | 'underLock' // the create runs under it (open-keys.ts)
  | 'published'; // screened before the write (publishing.ts)
({}) satisfies Record<Exclude<keyof Opening, Placed>, never>;

/** Builds the write (row, history, artifacts, events) that opens a task. */
export function openingWrite(
  opening: Opening,
  now: number,
  snapshot: (t: StoredTask) => Task,
): { write: TaskWrite; task: StoredTask } {
  const {
    messages,
    quotas,
    dueAt,
    id,
    kind,
    contextId,
    visibility,
    state,
    statusMessage,
    sender,
    target,
    metadata,
    rank,
    openKey,
    settles,
    unlessPaused,
    partsFor,
  } = opening;
  const record: TaskRecord = {
    id: id ?? uuidv7(), // time-ordered: new rows append to the indexes instead of landing at random
    kind,
    contextId,
    visibility,
    state,
    statusAt: now,
    createdAt: now,
    updatedAt: now,
    messageCount: messages.length,
    artifactCount: 0,
    version: 1,
    lastSeq: 1,
  };
  if (sender !== undefined) record.sender = sender;
  if (target !== undefined) record.target = target;
  if (metadata !== undefined) record.metadata = metadata;
  if (rank) record.rank = rank; // 0 is no rank, as the store reads it back
  if (openKey) record.openKey = openKey.key;
  if (statusMessage !== undefined) record.statusMessage = stamp(statusMessage, record);
  const history = messages.map((m) => stamp(m, record));
  const task: StoredTask = { record, history, artifacts: [] };
  const events: StreamResponse[] = [{ task: snapshot(task) }];
  const write: TaskWrite = {
    record,
    newMessages: history,
    newArtifacts: [],
    events,
    ...(quotas ? { quotas } : {}),
    ...(dueAt !== undefined ? { dueAt } : {}),
  };
  if (unlessPaused !== undefined) write.unlessPaused = unlessPaused;
  if (partsFor !== undefined) write.takes = partsCheck(partsFor, messages);
  return settles ? settledAtOnce({ task, write }, settles, now) : { task, write };
}

/** An opening and the change that settles it, as one write that creates the task as the change leaves it. */
function settledAtOnce(
  opened: { write: TaskWrite; task: StoredTask },
  change: Settling,
  now: number,
): { write: TaskWrite; task: StoredTask } {
  const { write: settled, task } = changeWrite(opened.task, change, now);
  const quotas = [...(opened.write.quotas ?? []), ...(settled.quotas ?? [])];
  const write: TaskWrite = Object.assign({}, opened.write, settled, {
    newMessages: [...opened.write.newMessages, ...settled.newMessages],
    events: [...opened.write.events, ...settled.events],
    ...(quotas.length ? { quotas } : {}),
  });
  delete write.expectedVersion; // it is created, not updated
  return { write, task };
}

/** Applies a kind's Change to a task read at some version: the new task and the write that stores it. */
export function changeWrite(current: StoredTask, change: Change, now: number): { write: TaskWrite; task: StoredTask } {
  const before = current.record;
  const record: TaskRecord = Object.assign({}, before, {
    updatedAt: Math.max(now, before.updatedAt),
    version: before.version + 1,
  });
  const events: StreamResponse[] = [];
  const messages = change.messages.map((m) => stamp(m, record));
  const statusMessage = change.statusMessage && stamp(change.statusMessage, record);
  for (const m of messages) {
    if (m.messageId !== statusMessage?.messageId) events.push({ message: m });
  }
  const known = new Set(current.artifacts.map((a) => a.artifactId));
  const artifacts = [...current.artifacts];
  for (const artifact of change.artifacts) {
    const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    if (at >= 0) artifacts[at] = artifact;
    else artifacts.push(artifact);
    known.add(artifact.artifactId);
    events.push({
      artifactUpdate: { taskId: record.id, contextId: record.contextId, artifact, append: false, lastChunk: true },
    });
  }
  const stored = new Map<string, Artifact>();
  for (const { artifact, append, lastChunk } of change.chunks ?? []) {
    const at = artifacts.findIndex((a) => a.artifactId === artifact.artifactId);
    const whole = append && at >= 0 ? appended(artifacts[at]!, artifact) : artifact;
    if (at >= 0) artifacts[at] = whole;
    else artifacts.push(whole);
    known.add(artifact.artifactId);
    stored.set(artifact.artifactId, whole);
    events.push({ artifactUpdate: { taskId: record.id, contextId: record.contextId, artifact, append, lastChunk } });
  }
  if (change.state) {
    record.state = change.state;
    record.statusAt = record.updatedAt;
    if (statusMessage) record.statusMessage = statusMessage;
    else delete record.statusMessage;
    const status = dropUndefined({
      state: record.state,
      message: statusMessage,
      timestamp: isoTime(record.statusAt),
    });
    events.push({ statusUpdate: { taskId: record.id, contextId: record.contextId, status } });
  }
  if (change.metadata) record.metadata = mergeMetadata(before.metadata, change.metadata);
  if (change.hold !== undefined) setHold(record, change.hold);
  record.messageCount = before.messageCount + messages.length;
  record.artifactCount = known.size;
  record.lastSeq = before.lastSeq + events.length;
  const history = [...current.history, ...messages];
  const write: TaskWrite = {
    record,
    expectedVersion: before.version,
    newMessages: messages,
    newArtifacts:
      stored.size > 0
        ? [...change.artifacts.filter((a) => !stored.has(a.artifactId)), ...stored.values()]
        : change.artifacts,
    events,
    ...(change.quotas ? { quotas: change.quotas } : {}),
    ...(change.entry ? { entry: change.entry } : {}),
    ...(change.dueAt !== undefined ? { dueAt: change.dueAt } : {}),
  };
  if (change.partsFor !== undefined) write.takes = partsCheck(change.partsFor, change.messages);
  if (change.wrote?.length) write.wrote = change.wrote;
  return { write, task: { record, history, artifacts } };
}

/** A stored artifact with a chunk's parts added; the chunk's name, description and metadata, when it has them, win. */
export function appended(before: Artifact, chunk: Artifact): Artifact {
  const { parts, ...named } = chunk;
  const merged = Object.assign({}, before, named, { parts: [...before.parts, ...parts] });
  if (before.metadata && chunk.metadata) merged.metadata = Object.assign({}, before.metadata, chunk.metadata);
  return merged;
}

/** Sets the record's holder and its hold's end, or (null) clears both: they go together. */
function setHold(record: TaskRecord, to: Hold | null): void {
  if (to === null) {
    delete record.holder;
    delete record.heldUntil;
  } else {
    record.holder = to.holder;
    record.heldUntil = to.until;
  }
}

/**
 * A change's metadata over the task's: the hub's own `muster` object merges key by key, so a
 * change names only what it sets there, and a key set to null there is removed.
 */
export function mergeMetadata(before: JsonObject | undefined, change: JsonObject): JsonObject {
  const muster: JsonObject = Object.assign({}, before?.['muster'], change['muster']);
  for (const key of Object.keys(muster)) if (muster[key] === null) delete muster[key];
  return Object.assign({}, before, change, Object.keys(muster).length > 0 ? { muster } : {});
}
