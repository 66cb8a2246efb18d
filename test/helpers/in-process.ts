/**
 * The hub's services on a fresh real database (SQLite, or PostgreSQL under MUSTER_TEST_PG),
 * without HTTP, on a clock the test moves: for what needs days to pass (quotas, deadlines) or two
 * schedulers racing. `close` closes the store and drops the database.
 */
import { createHub } from '../../src/hub/hub.js';
import { hashToken } from '../../src/identity/tokens.js';
import { openStore } from '../../src/store/open.js';
import { kindMigrationInputs } from '../../src/hub/kinds.js';
import { testDatabase } from './database.js';
import { KIND_MODULES } from '../../src/kinds/server.js';

export async function inProcessHub() {
  const db = await testDatabase('in-process');
  const store = await openStore(db.config, kindMigrationInputs(KIND_MODULES), () => {});
  const clock = { now: Date.now() };
  const hub = createHub(store, {
    modules: KIND_MODULES,
    adminTokenHash: hashToken('in-process-admin'),
    rateLimits: true,
    targets: { allowPrivate: true },
    deliveriesQueued: () => {},
    kinds: { review: { minDeadlineS: 1, maxDeadlineS: 7 * 86_400, sourceHosts: ['github.com', 'nodejs.org'] } },
    clock: () => clock.now,
  });
  const close = async () => {
    await store.close();
    await db.drop();
  };
  return { hub, store, clock, close };
}
