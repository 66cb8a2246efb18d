import type { Db } from './database.js';
import { StoreConflict, type EntryWrite, type TaskStore } from '../store.js';
import { entryFromRow, type EntryRow } from '../rows.js';

/** One-per-agent task entries, inside the caller's transaction: `check` the entry's rule, then `add` it. */
export function entryStatements(db: Db) {
  const taskState = db.prepare('SELECT state FROM tasks WHERE id = ?').pluck();
  const count = db.prepare('SELECT COUNT(*) FROM task_entries WHERE task_id = ?').pluck();
  const one = db.prepare('SELECT * FROM task_entries WHERE task_id = ? AND author = ?');
  const insertRow = db.prepare(
    `INSERT INTO task_entries (task_id, author, id, position, body, created_at)
     VALUES (@task, @author, @id, (SELECT COUNT(*) FROM task_entries WHERE task_id = @task), @body, @at)`,
  );

  /** Refuses an entry its rule does not allow; writes nothing. */
  const check = ({ entry, whileState, max }: EntryWrite): void => {
    if (taskState.get(entry.taskId) !== whileState)
      throw new StoreConflict('entry-closed', `task ${entry.taskId} is no longer ${whileState}`);
    if (one.get(entry.taskId, entry.author))
      throw new StoreConflict('entry-exists', `${entry.author} has an entry on task ${entry.taskId}`);
    const held = count.get(entry.taskId) as number;
    if (held >= max) throw new StoreConflict('entry-full', `task ${entry.taskId} holds ${held} entries`);
  };

  /** Writes an entry `check` allowed. */
  const add = ({ entry }: EntryWrite): void => {
    insertRow.run({
      task: entry.taskId,
      author: entry.author,
      id: entry.id,
      body: JSON.stringify(entry.body),
      at: entry.createdAt,
    });
  };

  return {
    check,
    add,
    count: (taskId: string) => count.get(taskId) as number,
  };
}

/** What the store's TaskStore reads of a task besides the task: its entries and its event log. */
export function entryReads(db: Db): Pick<TaskStore, 'entries' | 'entryOf' | 'entriesBy' | 'eventsAfter'> {
  const one = db.prepare('SELECT * FROM task_entries WHERE task_id = ? AND author = ?');
  const byAuthor = db.prepare(
    'SELECT * FROM task_entries WHERE author = ? ORDER BY created_at DESC, task_id DESC LIMIT +?',
  );
  const all = db.prepare('SELECT * FROM task_entries WHERE task_id = ? ORDER BY position');
  const eventRows = db.prepare('SELECT seq, body FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT +?');
  return {
    entries: async (taskId: string) => (all.all(taskId) as EntryRow[]).map(entryFromRow),
    entryOf: async (taskId: string, author: string) => {
      const row = one.get(taskId, author) as EntryRow | undefined;
      return row && entryFromRow(row);
    },
    entriesBy: async (author: string, limit: number) => (byAuthor.all(author, limit) as EntryRow[]).map(entryFromRow),
    eventsAfter: async (taskId: string, afterSeq: number, limit: number) =>
      (eventRows.all(taskId, afterSeq, limit) as { seq: number; body: string }[]).map((r) => ({
        seq: r.seq,
        event: JSON.parse(r.body),
      })),
  };
}
