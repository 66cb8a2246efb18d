import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import { newTask } from '../task-writes.fixture.js';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'muster-checkpoints-')), 'store.db');
const bytes = (file: string) => statSync(file).size;

async function until(done: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('WAL checkpoints on their own thread (SQLite)', () => {
  it('copies committed pages into the database file while the writer goes on', async () => {
    const file = freshFile();
    const store = openSqliteStore(file);
    const before = bytes(file);
    // Far fewer pages than the main connection's own checkpoint waits for: only the thread copies them.
    for (let i = 0; i < 50; i++) await store.createTask(newTask());
    await until(() => bytes(file) > before);
    expect(bytes(file)).toBeGreaterThan(before);
    await store.close();
  });

  it('copies the pages of writes outside group commit too (agents), nudged by nobody', async () => {
    const file = freshFile();
    const store = openSqliteStore(file);
    const before = bytes(file);
    for (let i = 0; i < 200; i++) {
      await store.insertAgent({ handle: `agent-${i}`, createdAt: 1 }, { id: `t-${i}`, hash: `h-${i}` });
    }
    await until(() => bytes(file) > before);
    expect(bytes(file)).toBeGreaterThan(before);
    await store.close();
  });

  it('keeps the WAL bounded under a long run of commits, and loses none of them', async () => {
    const file = freshFile();
    const store = openSqliteStore(file);
    const ids: string[] = [];
    for (let i = 0; i < 2_500; i++) {
      const write = newTask();
      ids.push(write.record.id);
      await store.createTask(write); // one commit each: several pages apiece, over 10,000 in all
    }
    // Restarted at least once: a WAL that kept every commit would hold them all (over 40 MB).
    expect(bytes(`${file}-wal`)).toBeLessThan(24 * 1024 * 1024);
    await store.close();
    const reopened = openSqliteStore(file);
    const read = { includeArtifacts: false };
    for (const id of [ids[0]!, ids[1_250]!, ids.at(-1)!])
      expect((await reopened.getTask(id, read))?.record.id).toBe(id);
    await reopened.close();
  });
});
