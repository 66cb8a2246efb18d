/**
 * The hub's nodes: each running hub process writes a row about itself (its id, version, start and
 * address) and refreshes it every few seconds, so any node can say which nodes are live. A node
 * removes its row when it stops cleanly; a node that dies leaves its row to go stale, and stale
 * rows are forgotten by the next heartbeat of any node. "Now" is the database's clock on a shared
 * store (so nodes with skewed clocks agree), the process's own on SQLite.
 */

/** What a node says of itself. */
export interface NodeFacts {
  id: string;
  version: string;
  /** When the process started, epoch ms. */
  startedAt: number;
  /** The base URL (or host name) it serves, when it knows it. */
  address?: string;
}

export interface NodeRecord extends NodeFacts {
  /** Its last heartbeat, epoch ms by the store's clock. */
  lastSeenAt: number;
}

export interface NodeStore {
  /** Writes (or refreshes) the node's row, seen now, and forgets every row not seen for `forgetAfterMs`. */
  beatNode(node: NodeFacts, forgetAfterMs: number): Promise<void>;
  /** Removes the node's row (a clean stop). */
  dropNode(id: string): Promise<void>;
  /** The nodes seen within the last `withinMs`, oldest start first. */
  liveNodes(withinMs: number): Promise<NodeRecord[]>;
}
