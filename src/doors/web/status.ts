/** The facts the status page shows about the hub: version and store, its live nodes and the public tasks created per hour (hub.status). */
import type { Hub } from '../../hub/hub.js';
import { VERSION } from '../../version.js';

export interface StatusFacts {
  version: string;
  store: string;
  /** The nodes serving this hub (the one answering marked `self`). */
  nodes: readonly { id: string; version: string; startedAt: string; lastSeenAt: string; self: boolean }[];
  /** Public tasks created in each of the last 24 hours, oldest first. */
  tasksPerHour: readonly number[];
}

const iso = (ms: number) => new Date(ms).toISOString();

export async function statusFacts(hub: Hub): Promise<StatusFacts> {
  const [nodes, tasksPerHour] = await Promise.all([hub.status.nodes(), hub.status.tasksPerHour(24)]);
  return {
    version: VERSION,
    store: hub.store.name,
    nodes: nodes.map((n) => ({ id: n.id, version: n.version, startedAt: iso(n.startedAt), lastSeenAt: iso(n.lastSeenAt), self: n.self })),
    tasksPerHour,
  };
}
