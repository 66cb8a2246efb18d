/**
 * Two store objects on one PostgreSQL database, standing for two hub processes, and what the
 * tests of them share: a task's next write, a delivery, waiting for what the other store hears,
 * and plain SQL beside the stores.
 */
import pg from 'pg';
import { freshPostgresDatabase } from '../../../test/helpers/postgres.js';
import type { DeliveryDraft, Store, TaskWrite } from '../store.js';
import { openPostgresStore } from './postgres-store.js';

export interface TwoStores {
  database: { url: string; drop: () => Promise<void> };
  a: Store;
  b: Store;
  close(): Promise<void>;
}

/** Two stores on a fresh database; quiet, since some tests cut their LISTEN connections. */
export async function openTwoStores(label: string): Promise<TwoStores> {
  const database = await freshPostgresDatabase(label);
  const a = await openPostgresStore(database.url, { log: () => {} });
  const b = await openPostgresStore(database.url, { log: () => {} });
  return {
    database,
    a,
    b,
    close: async () => {
      await a.close();
      await b.close();
      await database.drop();
    },
  };
}

export function bump(w: TaskWrite, note: string): TaskWrite {
  const r = w.record;
  const message = { messageId: `${note}-${r.id}`, role: 'ROLE_AGENT' as const, parts: [{ text: note }] };
  return {
    record: {
      ...r,
      version: r.version + 1,
      lastSeq: r.lastSeq + 1,
      updatedAt: r.updatedAt + 1,
      messageCount: r.messageCount + 1,
    },
    expectedVersion: r.version,
    newMessages: [message],
    newArtifacts: [],
    events: [{ message }],
  };
}

export const draft = (taskId: string, channel: string, seq: number): DeliveryDraft => ({
  id: `${taskId}-${channel}-${seq}`,
  taskId,
  channel,
  seq,
  url: 'https://x.example/hook',
  headers: {},
  body: '{}',
});

/** Waits until `check` passes, or fails with its last failure after `ms`. */
export async function eventually(check: () => void | Promise<void>, ms = 4_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > until) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

export const outcomes = (results: PromiseSettledResult<unknown>[]) => ({
  stood: results.filter((r) => r.status === 'fulfilled').length,
  refused: results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => r.reason as Error),
});

export async function sql<R = Record<string, unknown>>(
  url: string,
  text: string,
  values: unknown[] = [],
): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as R[];
  } finally {
    await client.end();
  }
}
