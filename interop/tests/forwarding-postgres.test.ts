// Forwarding to third-party A2A endpoints, two hub nodes sharing one fresh PostgreSQL database:
// the sender on node 1, the endpoint's owner on node 2; the endpoint's task may be followed by either.
import { afterAll, beforeAll, it } from 'vitest';
import { ADK_ENDPOINT, SDK_ENDPOINT, forwardingScenarios } from '../lib/forwarding.js';
import { startHub, type Hub } from '../lib/hub.js';
import { createDatabase, pgAvailable, PG_SERVER } from '../lib/pg.js';

let node1: Hub;
let node2: Hub;
let db: ReturnType<typeof createDatabase> | undefined;

beforeAll(async () => {
  if (!pgAvailable()) throw new Error(`PostgreSQL is not reachable at ${PG_SERVER} (set MUSTER_INTEROP_PG)`);
  db = createDatabase();
  node1 = await startHub({ db: db.url });
  node2 = await startHub({ db: db.url, adminToken: node1.adminToken });
});
afterAll(async () => {
  await node1?.stop();
  await node2?.stop();
  db?.drop();
});

it('two nodes share the database', async () => {
  const health = await Promise.all([node1, node2].map(async (n) => (await fetch(new URL('health', n.url))).json()));
  for (const h of health)
    if ((h as { store: string }).store !== 'postgres') throw new Error(`not on PostgreSQL: ${JSON.stringify(h)}`);
});

const nodes = () => ({ sender: node1, owner: node2, reader: node2 });
forwardingScenarios('PostgreSQL (2 nodes)', nodes, SDK_ENDPOINT);
forwardingScenarios('PostgreSQL (2 nodes)', nodes, ADK_ENDPOINT);
