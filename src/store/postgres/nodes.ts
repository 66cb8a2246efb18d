import type { Db } from './database.js';
import type { NodeFacts, NodeStore } from '../nodes.js';
import { nodeFromRow, type NodeRow } from '../rows.js';

/** The hub's nodes (store/nodes.ts), seen by the database's clock, so nodes whose clocks differ agree. */
export function nodeStatements(db: Db): NodeStore {
  return {
    beatNode: async (node: NodeFacts, forgetAfterMs: number) => {
      await db.query(
        `WITH gone AS (DELETE FROM nodes WHERE last_seen < muster_now_ms() - $5 AND id <> $1)
         INSERT INTO nodes (id, version, started_at, last_seen, address) VALUES ($1, $2, $3, muster_now_ms(), $4)
         ON CONFLICT (id) DO UPDATE SET version = EXCLUDED.version, last_seen = EXCLUDED.last_seen, address = EXCLUDED.address`,
        [node.id, node.version, node.startedAt, node.address ?? null, forgetAfterMs],
      );
    },
    dropNode: async (id: string) => void (await db.query('DELETE FROM nodes WHERE id = $1', [id])),
    liveNodes: async (withinMs: number) =>
      (
        await db.query<NodeRow>('SELECT * FROM nodes WHERE last_seen >= muster_now_ms() - $1 ORDER BY started_at, id', [
          withinMs,
        ])
      ).rows.map(nodeFromRow),
  };
}
