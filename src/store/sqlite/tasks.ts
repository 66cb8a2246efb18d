import { isConstraintViolation, type Db } from './database.js';
import { groupCommit, HalfWritten } from './group-commit.js';
import { TASK_COLUMNS } from '../rows.js';
import { rowValues } from './rows.js';
import {
  AgentPaused,
  loggedEvents,
  PartsRefused,
  refusedPart,
  StoreConflict,
  type PartsCheck,
  TokenNotLive,
  type CommitObserver,
  type EntryWrite,
  type EventBus,
  type SealedWrite,
  type TaskCommitted,
  type TaskCreated,
  type TaskStore,
  type TaskWrite,
} from '../store.js';
import { quotaStatements } from './quota-charges.js';
import type { entryStatements } from './entries.js';
import type { dueWorkStatements } from './schedule.js';
import type { receiptIndex } from './receipts.js';
import type { deliveryStatements } from './outbox.js';
import type { inboxStatements } from './inbox.js';
import type { Target } from './targets.js';
import { inboxKey } from '../inbox.js';
import { artifactBody } from './artifact-bodies.js';

/** Prepared statements for task writes; a whole TaskWrite is applied within one transaction, or none of it. */
export function taskWriter(
  db: Db,
  bus: EventBus,
  outbox: Pick<ReturnType<typeof deliveryStatements>, 'enqueue' | 'enqueueForward'>,
  entries: ReturnType<typeof entryStatements>,
  due: ReturnType<typeof dueWorkStatements>,
  receipts: ReturnType<typeof receiptIndex>,
  tokenLive: (hash: string) => boolean,
  targetOf: (handle: string) => Target,
  inbox: Pick<ReturnType<typeof inboxStatements>, 'write'>,
  observe: CommitObserver = () => {},
): Pick<TaskStore, 'createTask' | 'updateTask' | 'addEntry'> {
  const insertTask = db.prepare(
    `INSERT INTO tasks (${TASK_COLUMNS.join(', ')}) VALUES (${TASK_COLUMNS.map(() => '?').join(', ')})`,
  );
  const updateTask = db.prepare(
    `UPDATE tasks SET ${TASK_COLUMNS.slice(1)
      .map((c) => `${c} = ?`)
      .join(', ')} WHERE id = ? AND version = ?`,
  );
  const insertMessage = db.prepare('INSERT INTO messages (task_id, seq, body) VALUES (?, ?, ?)');
  const upsertArtifact = db.prepare(
    `INSERT INTO artifacts (task_id, artifact_id, position, body)
     VALUES (@task, @id, (SELECT COALESCE(MAX(position) + 1, 0) FROM artifacts WHERE task_id = @task), @body)
     ON CONFLICT (task_id, artifact_id) DO UPDATE SET body = excluded.body`,
  );
  const insertEvent = db.prepare('INSERT INTO events (task_id, seq, body, created_at) VALUES (?, ?, ?, ?)');
  const insertPath = db.prepare(
    `INSERT INTO task_paths (context_id, path, task_id, written_at) VALUES (?, ?, ?, ?)
     ON CONFLICT DO NOTHING`,
  );
  const quotas = quotaStatements(db);
  /** What each write added to an inbox log, announced after the commit. */
  const inboxCommits = new WeakMap<TaskWrite, TaskCommitted>();

  /** The agent `handle` names, read once per write: `known` when it is that one. */
  const target = (handle: string | undefined, known?: Target): Target | undefined =>
    handle === undefined ? undefined : known?.handle === handle ? known : targetOf(handle);

  /** Everything that may refuse a write, read before it writes anything (see group-commit.ts); answers what it read of the agent it goes to. */
  const check = (
    w: {
      receipt?: TaskWrite['receipt'];
      quotas?: TaskWrite['quotas'];
      dueDone?: string;
      liveToken?: string;
      tokenGate?: TaskWrite['tokenGate'];
      unlessPaused?: string;
      takes?: PartsCheck;
      record?: { id: string };
    },
    entry: EntryWrite | undefined,
  ) => {
    quotas.gate(w.tokenGate);
    if (w.liveToken !== undefined && !tokenLive(w.liveToken)) throw new TokenNotLive();
    const pausable = target(w.unlessPaused);
    if (pausable?.paused) throw new AgentPaused(pausable.paused);
    const taking = target(w.takes?.agent, pausable);
    if (taking) takesParts(w.takes!, taking.modes ?? w.takes!.defaults);
    if (w.dueDone !== undefined) due.checkHeld(w.record!.id, w.dueDone);
    if (entry) entries.check(entry);
    if (w.receipt && receipts.exists(w.receipt.scope, w.receipt.key))
      throw new StoreConflict('receipt', 'idempotency receipt exists');
    quotas.check(w.quotas);
    return taking ?? pausable;
  };

  /** Writes that nothing refuses any more; a failure here is HalfWritten and fails the batch. Answers whether it queued a forward. */
  const rest = (w: TaskWrite, forwards = false): boolean => {
    try {
      const { record } = w;
      if (w.entry) entries.add(w.entry);
      const firstMessage = record.messageCount - w.newMessages.length;
      w.newMessages.forEach((m, i) => insertMessage.run(record.id, firstMessage + i + 1, JSON.stringify(m)));
      for (const a of w.newArtifacts)
        upsertArtifact.run({ task: record.id, id: a.artifactId, body: artifactBody(w, a) });
      const firstEvent = record.lastSeq - w.events.length;
      w.events.forEach((e, i) => insertEvent.run(record.id, firstEvent + i + 1, JSON.stringify(e), record.updatedAt));
      for (const path of w.wrote ?? []) insertPath.run(record.contextId, path, record.id, record.updatedAt);
      if (w.receipt) receipts.write(w.receipt, record.updatedAt);
      const lastSeq = w.inbox && inbox.write(w.inbox, record.updatedAt);
      if (w.inbox && lastSeq !== undefined) inboxCommits.set(w, { log: inboxKey(w.inbox.agent), lastSeq, events: [] });
      if (w.deliveries) outbox.enqueue(w.deliveries, record.updatedAt);
      if (w.dueAt !== undefined) due.schedule(record.id, w.dueAt);
      if (w.dueDone !== undefined) due.done(record.id);
      quotas.apply(w.quotas);
      return forwards && outbox.enqueueForward(w.forward!.draft(), record.updatedAt);
    } catch (e) {
      throw new HalfWritten(e);
    }
  };

  const create = (w: TaskWrite): TaskCreated => {
    const read = check(w, w.entry);
    try {
      insertTask.run(...rowValues(w.record)); // the first write: a refusal here leaves nothing behind
    } catch (e) {
      throw (
        keyTaken(e, w) ?? (isConstraintViolation(e) ? new StoreConflict('task-id', `task ${w.record.id} exists`) : e)
      );
    }
    const forwarded = rest(w, w.forward !== undefined && target(w.forward.to, read)!.forwards); // drafted only for a target that forwards
    return { forwarded };
  };

  /** Refuses (PartsRefused) a part the agent's input modes do not take. */
  const takesParts = (check: PartsCheck, modes: readonly string[]) => {
    const refused = refusedPart(check, modes);
    if (refused >= 0) throw new PartsRefused(check.agent, refused, check.mediaTypes[refused]!, modes);
  };

  const update = (w: TaskWrite): void => {
    const { record } = w;
    if (w.entriesSeen !== undefined && entries.count(record.id) !== w.entriesSeen) {
      throw new StoreConflict('version', `task ${record.id} has new entries since it was read`);
    }
    check(w, w.entry);
    const [id, ...columns] = rowValues(record);
    let result;
    try {
      result = updateTask.run(...columns, id, w.expectedVersion); // the first write: a refusal here leaves nothing behind
    } catch (e) {
      throw keyTaken(e, w) ?? e;
    }
    if (result.changes !== 1) throw new StoreConflict('version', `task ${record.id} changed since it was read`);
    rest(w);
  };

  const seal = (w: SealedWrite) => {
    check(w, w);
    try {
      entries.add(w);
      if (w.receipt) receipts.write(w.receipt, w.entry.createdAt);
      quotas.apply(w.quotas);
    } catch (e) {
      throw new HalfWritten(e);
    }
  };

  const apply = (op: WriteOp): TaskCreated | undefined => {
    if (op.kind === 'create') return create(op.write);
    if (op.kind === 'sealed') seal(op.write);
    else update(op.write);
    return undefined;
  };
  // A sealed entry leaves the task row and its log as they were: nothing to announce.
  const batch = groupCommit(db, apply, {
    committed: (op) => {
      if (op.kind === 'sealed') return;
      bus.task({ log: op.write.record.id, lastSeq: op.write.record.lastSeq, events: loggedEvents(op.write) });
      const inboxCommit = inboxCommits.get(op.write);
      if (inboxCommit) bus.task(inboxCommit);
    },
    ended: (committed, writes, seconds) => {
      receipts.settle(committed);
      if (committed) observe(seconds, writes);
    },
  });
  return {
    createTask: async (write: TaskWrite) => (await batch({ kind: 'create', write }))!,
    updateTask: async (write: TaskWrite) => void (await batch({ kind: 'update', write })),
    addEntry: async (write: SealedWrite) => void (await batch({ kind: 'sealed', write })),
  };
}

/** The refusal of a row that would give a second open task the write's open key (the `tasks_open_key` index), if that is what `e` is. */
function keyTaken(e: unknown, w: TaskWrite): StoreConflict | undefined {
  if (!isConstraintViolation(e) || !/\btasks\.open_key\b/.test((e as Error).message)) return undefined;
  return new StoreConflict('open-key', `an open task holds the open key of task ${w.record.id}`);
}

type WriteOp = { kind: 'create' | 'update'; write: TaskWrite } | { kind: 'sealed'; write: SealedWrite };
