/**
 * Several `muster serve` processes on one fresh PostgreSQL database, for a describe block: started
 * before its tests (after it, a file's own beforeAll sets up what it needs), their logs printed
 * when a test fails, stopped and the database dropped after.
 */
import { afterAll, beforeAll, beforeEach, onTestFailed } from 'vitest';
import { nodeLogs, startNodes, stopNodes, type NodeOptions, type NodeProcess } from './nodes.js';
import { freshPostgresDatabase } from './postgres.js';

export interface Cluster {
  /** The nodes, in the order named; empty until the block's beforeAll has run. */
  readonly nodes: NodeProcess[];
}

export function clusterOnPostgres(database: string, names: readonly string[], options: (db: string, name: string, index: number) => NodeOptions): Cluster {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  const cluster: Cluster = { nodes: [] };
  beforeAll(async () => {
    db = await freshPostgresDatabase(database);
    cluster.nodes.push(...(await startNodes(names, (name, i) => options(db!.url, name, i))));
  }, 45_000);
  afterAll(async () => {
    await stopNodes(cluster.nodes);
    await db?.drop();
  }, 20_000);
  beforeEach(() => {
    onTestFailed(() => console.error(`what the nodes said:\n${nodeLogs(cluster.nodes)}`));
  });
  return cluster;
}
