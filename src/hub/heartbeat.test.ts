/**
 * A node's heartbeat through a PostgreSQL outage: the failure is reported once however many
 * heartbeats fail, its end once, nothing is thrown, and the row is there again after. Runs only
 * when MUSTER_TEST_PG names a server.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresDatabase, testPostgres } from '../../test/helpers/postgres.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import type { Store } from '../store/store.js';
import { Heartbeat, LIVE_MS } from './heartbeat.js';

describe.skipIf(!testPostgres)('a heartbeat through a database outage', () => {
  let database: { url: string; drop: () => Promise<void> };
  let store: Store;
  let admin: pg.Client;
  const name = () => new URL(database.url).pathname.slice(1);
  const setConnections = (allowed: boolean) => admin.query(`ALTER DATABASE ${name()} ALLOW_CONNECTIONS ${allowed}`);

  beforeAll(async () => {
    database = await freshPostgresDatabase('heartbeat');
    store = await openPostgresStore(database.url, { log: () => {} });
    const url = new URL(database.url);
    url.pathname = '/postgres';
    admin = new pg.Client({ connectionString: url.href });
    await admin.connect();
  });
  afterAll(async () => {
    await setConnections(true).catch(() => {});
    await admin.end();
    await store.close();
    await database.drop();
  });

  it('says the outage once and its end once, and the node is listed again after', async () => {
    const said: string[] = [];
    const heartbeat = new Heartbeat(store, { id: 'node-outage', version: '9.9.9', startedAt: 1 }, { failed: () => said.push('failed'), recovered: () => said.push('recovered') });
    const listed = async () => (await store.liveNodes(LIVE_MS)).map((n) => n.id);
    await heartbeat.start('http://127.0.0.1:1/');
    expect(await listed()).toEqual(['node-outage']);

    await setConnections(false);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name()]);
    await heartbeat.beat();
    await heartbeat.beat();
    await heartbeat.beat();
    expect(said).toEqual(['failed']);

    await setConnections(true);
    await heartbeat.beat();
    await heartbeat.beat();
    expect(said).toEqual(['failed', 'recovered']);
    expect((await store.liveNodes(LIVE_MS)).find((n) => n.id === 'node-outage')).toMatchObject({ version: '9.9.9', address: 'http://127.0.0.1:1/' });

    await heartbeat.stop();
    expect(await listed()).toEqual([]);
  });
});
