import { closeSync, mkdtempSync, openSync, readSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import { newTask } from '../task-writes.fixture.js';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'muster-checkpoints-')), 'store.db');
const bytes = (file: string) => statSync(file).size;

/** How many times the WAL restarted from its start: the checkpoint sequence number in its header. */
function walRestarts(wal: string): number {
  const header = Buffer.alloc(16);
  const fd = openSync(wal, 'r');
  readSync(fd, header, 0, 16, 0);
  closeSync(fd);
  return header.readUInt32BE(12);
}

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
    // The file's size is the longest cycle between restarts, which depends on how the two threads
    // were scheduled (16 MB on a quiet machine, 27 MB under CI's load); a WAL that never restarted
    // holds every commit (about 119 MB). So: restarted, and far below that.
    expect(walRestarts(`${file}-wal`)).toBeGreaterThan(0);
    expect(bytes(`${file}-wal`)).toBeLessThan(64 * 1024 * 1024);
    await store.close();
    const reopened = openSqliteStore(file);
    const read = { includeArtifacts: false };
    for (const id of [ids[0]!, ids[1_250]!, ids.at(-1)!])
      expect((await reopened.getTask(id, read))?.record.id).toBe(id);
    await reopened.close();
  });
});
