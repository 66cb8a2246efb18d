// How the memory bench calls and measures a hub: one memory skill call, the CPU the hubs, the
// driver and the machine use, and the size of the store's database.
import { randomUUID } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import Database from 'better-sqlite3';
import pg from 'pg';
import { cpuSeconds, http } from '../lib.mjs';
import { BOARD_FILE, NO_BOARD_FILE } from './settings.mjs';

// ---------------------------------------------------------------- memory calls

/**
 * One skill call at a memory base: `{ ms, task, data, answer }`. `data` is the result's data part
 * when the call completed; `answer` (HTTP status and body) is kept for the report otherwise.
 */
export async function callSkill(base, token, skill, args, { boardFile = BOARD_FILE } = {}) {
  const params = {
    message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ data: { skill, args } }] },
    ...(boardFile ? {} : { configuration: NO_BOARD_FILE }),
  };
  const t0 = performance.now();
  const res = await http('POST', `${base}memory/`, {
    token,
    body: { jsonrpc: '2.0', id: 1, method: 'SendMessage', params },
  });
  const took = performance.now() - t0;
  const task = res.body?.result?.task;
  const completed = res.status === 200 && task?.status?.state === 'TASK_STATE_COMPLETED';
  const data = completed
    ? task.artifacts?.find((a) => a.artifactId === 'result')?.parts?.find((p) => p.data)?.data
    : undefined;
  return {
    ms: took,
    task,
    data,
    answer: completed && data ? undefined : `HTTP ${res.status} ${res.text.slice(0, 400)}`,
  };
}

/** What a request was, for the report: the skill and its args, long lists cut short. */
export const describe = (skill, args) =>
  JSON.stringify({
    skill,
    args: {
      ...args,
      ...(args.cards ? { cards: args.cards.length > 1 ? `[${args.cards.length} cards]` : args.cards } : {}),
    },
  });

// ---------------------------------------------------------------- CPU

/** Busy and total CPU time of the machine so far (/proc/stat), in clock ticks. */
function machineTicks() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = fields.map(Number);
  const total = n.reduce((a, b) => a + b, 0);
  return { busy: total - n[3] - (n[4] ?? 0), total };
}

/** Cores used by the hubs, this driver and the whole machine between start() and stop(). */
export function cpuMeter(pids) {
  const hubs = pids.map(cpuSeconds);
  const driver = process.cpuUsage();
  const machine = machineTicks();
  const t0 = performance.now();
  return () => {
    const seconds = (performance.now() - t0) / 1000;
    const m = machineTicks();
    const used = process.cpuUsage(driver);
    const cores = (s) => Number((s / seconds).toFixed(2));
    return {
      hubCores: pids.map((pid, i) => cores((cpuSeconds(pid) ?? 0) - (hubs[i] ?? 0))),
      driverCores: cores((used.user + used.system) / 1e6),
      machineBusyCores: Number((((m.busy - machine.busy) / (m.total - machine.total)) * os.cpus().length).toFixed(2)),
    };
  };
}

// ---------------------------------------------------------------- what the database holds

export async function databaseSizes(store) {
  if (store.sqliteFile) {
    const size = (f) => {
      try {
        return statSync(f).size;
      } catch {
        return 0;
      }
    };
    const out = { bytes: size(store.sqliteFile) + size(`${store.sqliteFile}-wal`) };
    const db = new Database(store.sqliteFile, { readonly: true });
    try {
      const rows = db
        .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 8')
        .all();
      out.largest = Object.fromEntries(rows.map((r) => [r.name, r.bytes]));
    } catch (err) {
      out.largest = `dbstat not available: ${err.message}`;
    } finally {
      db.close();
    }
    return out;
  }
  const client = new pg.Client({ connectionString: store.pgUrl });
  await client.connect();
  try {
    const bytes = Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
    const rows = (
      await client.query(
        `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.relkind = 'r' AND n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY bytes DESC LIMIT 8`,
      )
    ).rows;
    return { bytes, largest: Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)])) };
  } finally {
    await client.end();
  }
}

export const mb = (bytes) => Number((bytes / 1e6).toFixed(1));
