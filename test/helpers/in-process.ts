/**
 * The hub's services on a real SQLite file, without HTTP, on a clock the test moves: for
 * what needs days to pass (quotas, deadlines) or two schedulers racing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHub } from '../../src/hub/hub.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';

export function inProcessHub() {
  const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'muster-in-process-')), 'hub.db'));
  const clock = { now: Date.now() };
  const hub = createHub(store, {
    adminToken: 'in-process-admin',
    rateLimits: true,
    targets: { allowPrivate: true },
    deliveriesQueued: () => {},
    review: { minDeadlineS: 1, maxDeadlineS: 7 * 86_400, sourceHosts: ['github.com', 'nodejs.org'] },
    clock: () => clock.now,
  });
  return { hub, store, clock };
}
