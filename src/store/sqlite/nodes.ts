import type { Db } from './database.js';
import type { NodeFacts, NodeStore } from '../nodes.js';
import { nodeFromRow, type NodeRow } from '../rows.js';

/** The hub's nodes (store/nodes.ts): on SQLite there is one, and its clock is the clock. */
export function nodeStatements(db: Db, clock: () => number = Date.now): NodeStore {
  const beat = db.prepare(
    `INSERT INTO nodes (id, version, started_at, last_seen, address) VALUES (@id, @version, @startedAt, @now, @address)
     ON CONFLICT (id) DO UPDATE SET version = excluded.version, last_seen = excluded.last_seen, address = excluded.address`,
  );
  const forget = db.prepare('DELETE FROM nodes WHERE last_seen < ?');
  const drop = db.prepare('DELETE FROM nodes WHERE id = ?');
  const live = db.prepare('SELECT * FROM nodes WHERE last_seen >= ? ORDER BY started_at, id');
  return {
    beatNode: async (node: NodeFacts, forgetAfterMs: number) => {
      const now = clock();
      forget.run(now - forgetAfterMs);
      beat.run({ id: node.id, version: node.version, startedAt: node.startedAt, now, address: node.address ?? null });
    },
    dropNode: async (id: string) => void drop.run(id),
    liveNodes: async (withinMs: number) => (live.all(clock() - withinMs) as NodeRow[]).map(nodeFromRow),
  };
}
