/**
 * Several `muster serve` processes on one fresh database, for a describe block: started
 * before its tests (after it, a file's own beforeAll sets up what it needs), their logs printed
 * when a test fails, stopped and the database dropped after.
 */
import { afterAll, beforeAll, beforeEach, onTestFailed } from 'vitest';
import { testDatabase, testDialect, type TestDatabase } from './database.js';
import { nodeLogs, startNodes, stopNodes, type NodeOptions, type NodeProcess } from './nodes.js';
import { freshPostgresDatabase } from './postgres.js';

export interface Cluster {
  /** The nodes, in the order named; empty until the block's beforeAll has run. */
  readonly nodes: NodeProcess[];
}

type Options = (db: string, name: string, index: number) => NodeOptions;

function cluster(
  database: () => Promise<{ url: string; drop: () => Promise<void> }>,
  names: readonly string[],
  options: Options,
): Cluster {
  let db: { url: string; drop: () => Promise<void> } | undefined;
  const made: Cluster = { nodes: [] };
  beforeAll(async () => {
    db = await database();
    made.nodes.push(...(await startNodes(names, (name, i) => options(db!.url, name, i))));
  }, 45_000);
  afterAll(async () => {
    await stopNodes(made.nodes);
    await db?.drop();
  }, 20_000);
  beforeEach(() => {
    onTestFailed(() => console.error(`what the nodes said:\n${nodeLogs(made.nodes)}`));
  });
  return made;
}

/** The nodes on a fresh PostgreSQL database of their own; `url()` names it, to read rows beside them. */
export function clusterOnPostgres(
  database: string,
  names: readonly string[],
  options: Options,
): Cluster & { url(): string } {
  let url: string | undefined;
  const nodes = cluster(
    async () => {
      const made = await freshPostgresDatabase(database);
      url = made.url;
      return made;
    },
    names,
    options,
  );
  return Object.assign(nodes, { url: () => url! });
}

/**
 * The nodes on the suite's own database (see database.ts): every one named on PostgreSQL; on
 * SQLite only the first, as one process holds the file. `db()` reads rows beside them.
 */
export function clusterOnTestDatabase(
  label: string,
  names: readonly string[],
  options: Options,
): Cluster & { db(): TestDatabase } {
  let made: TestDatabase | undefined;
  const nodes = cluster(
    async () => (made = await testDatabase(label)),
    testDialect === 'postgres' ? names : names.slice(0, 1),
    options,
  );
  return Object.assign(nodes, { db: () => made! });
}
