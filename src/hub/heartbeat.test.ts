/**
 * A node's heartbeat through a PostgreSQL outage: the failure is reported once however many
 * heartbeats fail, its end once, nothing is thrown, and the row is there again after. Runs only
 * when MUSTER_TEST_PG names a server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseOutage, freshPostgresDatabase, testPostgres } from '../../test/helpers/postgres.js';
import { openPostgresStore } from '../store/postgres/postgres-store.js';
import type { Store } from '../store/store.js';
import { Heartbeat, LIVE_MS } from './heartbeat.js';

describe.skipIf(!testPostgres)('a heartbeat through a database outage', () => {
  let database: { url: string; drop: () => Promise<void> };
  let store: Store;
  let outage: Awaited<ReturnType<typeof databaseOutage>>;

  beforeAll(async () => {
    database = await freshPostgresDatabase('heartbeat');
    store = await openPostgresStore(database.url, { log: () => {} });
    outage = await databaseOutage(database.url);
  });
  afterAll(async () => {
    await outage.close();
    await store.close();
    await database.drop();
  });

  it('says the outage once and its end once, and the node is listed again after', async () => {
    const said: string[] = [];
    const heartbeat = new Heartbeat(
      store,
      { id: 'node-outage', version: '9.9.9', startedAt: 1 },
      { failed: () => said.push('failed'), recovered: () => said.push('recovered') },
    );
    const listed = async () => (await store.liveNodes(LIVE_MS)).map((n) => n.id);
    await heartbeat.start('http://127.0.0.1:1/');
    expect(await listed()).toEqual(['node-outage']);

    await outage.cut();
    await heartbeat.beat();
    await heartbeat.beat();
    await heartbeat.beat();
    expect(said).toEqual(['failed']);

    await outage.restore();
    await heartbeat.beat();
    await heartbeat.beat();
    expect(said).toEqual(['failed', 'recovered']);
    expect((await store.liveNodes(LIVE_MS)).find((n) => n.id === 'node-outage')).toMatchObject({
      version: '9.9.9',
      address: 'http://127.0.0.1:1/',
    });

    await heartbeat.stop();
    expect(await listed()).toEqual([]);
  });
});
