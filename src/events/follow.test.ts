import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { freshPostgresDatabase, testPostgres } from '../../test/helpers/postgres.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import type { LoggedEvent, TaskWrite } from '../store/store.js';
import { follow } from './follow.js';
import { Wakeups } from './wakeups.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const opening = (id: string): TaskWrite => ({
  record: {
    id,
    kind: 'direct',
    contextId: 'ctx',
    sender: 'a',
    target: 'b',
    visibility: 'participants',
    state: 'TASK_STATE_SUBMITTED',
    statusAt: 1,
    createdAt: 1,
    updatedAt: 1,
    messageCount: 0,
    artifactCount: 0,
    version: 1,
    lastSeq: 1,
  },
  newMessages: [],
  newArtifacts: [],
  events: [{ task: { id, contextId: 'ctx', status: { state: 'TASK_STATE_SUBMITTED', timestamp: '' } } }],
});

describe.skipIf(!testPostgres)('follow on a store shared with other processes', () => {
  it('reads the log after a quiet while, so a commit whose announcement was lost still reaches the subscriber', async () => {
    const database = await freshPostgresDatabase('follow');
    const store = await openPostgresStore(database.url, { log: () => {} });
    const raw = new pg.Client({ connectionString: database.url });
    try {
      await store.createTask(opening('t-lost'));
      const signal = new AbortController();
      const events = follow(store, new Wakeups(store.events), 't-lost', 1, signal.signal)[Symbol.asyncIterator]();
      const next = events.next();
      await raw.connect();
      await sleep(300); // the subscriber has read the log and waits
      // A commit made behind the store's back: as if its writer died before announcing it.
      await raw.query(`INSERT INTO events (task_id, seq, body, created_at) VALUES ('t-lost', 2, $1, 2)`, [
        JSON.stringify({ message: { messageId: 'm', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] } }),
      ]);
      await raw.query(`UPDATE tasks SET last_seq = 2 WHERE id = 't-lost'`);
      expect(await Promise.race([next.then(() => 'woken'), sleep(1_000).then(() => 'still waiting')])).toBe(
        'still waiting',
      ); // nothing announced it
      const got = (await next).value as LoggedEvent;
      expect(got.seq).toBe(2);
      expect(got.event).toMatchObject({ message: { messageId: 'm' } });
      signal.abort();
      await events.return?.(undefined);
    } finally {
      await raw.end().catch(() => {});
      await store.close();
      await database.drop();
    }
  }, 15_000);
});
