import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { storeSuite } from '../store.suite.js';
import { openSqliteStore } from './sqlite-store.js';

const freshFile = () => join(mkdtempSync(join(tmpdir(), 'muster-store-')), 'store.db');

storeSuite('sqlite', async () => {
  const file = freshFile();
  return { store: openSqliteStore(file), reopen: async () => openSqliteStore(file) };
});

/** SQLite's plan for `sql` on the migrated schema. */
function planOf(sql: string): string {
  const file = freshFile();
  openSqliteStore(file).close();
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
  } finally {
    db.close();
  }
}

describe('sqlite query plans', () => {
  // Keyset pages stay fast at a million tasks only if every list walks an index in order.
  const lists: [string, string][] = [
    ['inbox', "SELECT * FROM tasks WHERE target = 'b' AND (updated_at, id) < (1, 'x') ORDER BY updated_at DESC, id DESC LIMIT 21"],
    ['inbox by state', "SELECT * FROM tasks WHERE target = 'b' AND state = 'TASK_STATE_WORKING' AND (updated_at, id) < (1, 'x') ORDER BY updated_at DESC, id DESC LIMIT 21"],
    ['sent', "SELECT * FROM tasks WHERE sender = 'a' AND target IS NOT NULL ORDER BY updated_at DESC, id DESC LIMIT 21"],
    ['between', "SELECT * FROM tasks WHERE sender = 'a' AND target = 'b' ORDER BY updated_at DESC, id DESC LIMIT 21"],
    ['context', "SELECT * FROM tasks WHERE context_id = 'c' ORDER BY updated_at DESC, id DESC LIMIT 21"],
    ['public', "SELECT * FROM tasks WHERE visibility = 'public' ORDER BY updated_at DESC, id DESC LIMIT 21"],
    ['public by state', "SELECT * FROM tasks WHERE visibility = 'public' AND state = 'TASK_STATE_WORKING' ORDER BY updated_at DESC, id DESC LIMIT 21"],
    ['received at the hub base', "SELECT * FROM tasks WHERE target = 'a' AND sender IS NOT 'a' ORDER BY updated_at DESC, id DESC LIMIT 21"],
  ];
  it.each(lists)('the %s list uses an index and no sort', (_name, sql) => {
    const plan = planOf(sql);
    expect(plan).toMatch(/USING (COVERING )?INDEX/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
  });

  // totalSize counts a whole scope: it must not read a row per task.
  const counts: [string, string][] = [
    ['inbox', "SELECT COUNT(*) FROM tasks WHERE target = 'b'"],
    ['sent', "SELECT COUNT(*) FROM tasks WHERE sender = 'a' AND target IS NOT NULL"],
    ['received at the hub base', "SELECT COUNT(*) FROM tasks WHERE target = 'a' AND sender IS NOT 'a'"],
    ['public by state', "SELECT COUNT(*) FROM tasks WHERE visibility = 'public' AND state = 'TASK_STATE_WORKING'"],
  ];
  it.each(counts)('the %s count reads only an index', (_name, sql) => {
    const plan = planOf(sql);
    expect(plan).toMatch(/USING COVERING INDEX/);
  });
});
