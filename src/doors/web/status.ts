/**
 * The facts the status page shows about the hub. Version and store are known here; the nodes that
 * share the database and tasks per hour come from `hub.status`, which is built elsewhere.
 * TO WIRE (coordinator): fill `nodes` and `tasksPerHour` from hub.status in statusFacts, here and only here.
 */
import type { Hub } from '../../hub/hub.js';
import { VERSION } from '../../version.js';

export interface StatusFacts {
  version: string;
  store: string;
  /** The nodes serving this hub, when known. */
  nodes?: readonly { id: string; lastSeenAt?: string }[];
  /** Tasks created in each of the last hours, oldest first, when known. */
  tasksPerHour?: readonly number[];
}

export async function statusFacts(hub: Hub): Promise<StatusFacts> {
  return { version: VERSION, store: hub.store.name };
}
