/**
 * This process as a node of the hub (store/nodes.ts): its row is written when it starts, refreshed
 * every BEAT_MS and removed when it stops. A database that fails a heartbeat is said once, and
 * once more when a heartbeat works again: an outage does not fill the log with a line every beat,
 * and a missed heartbeat is made up by the next.
 */
import type { NodeFacts, NodeStore } from '../store/store.js';

/** How often a node refreshes its row. */
export const BEAT_MS = 10_000;
/** A node not seen for this long is not live (three missed heartbeats). */
export const LIVE_MS = 30_000;
/** A row not seen for this long is forgotten by the next heartbeat of any node. */
export const FORGET_MS = 10 * 60_000;

export interface HeartbeatReport {
  /** The first heartbeat that failed after one that worked (or none yet). */
  failed(error: unknown): void;
  /** The first heartbeat that worked after one that failed. */
  recovered(): void;
}

export class Heartbeat {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private failing = false;
  private address: string | undefined;

  constructor(
    private readonly store: Pick<NodeStore, 'beatNode' | 'dropNode'>,
    private readonly facts: Omit<NodeFacts, 'address'>,
    private readonly report: HeartbeatReport,
  ) {}

  /** Writes the first heartbeat (a failure is reported, not thrown) and keeps beating until stop. */
  async start(address?: string): Promise<void> {
    this.address = address;
    await this.beat();
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.beat(), BEAT_MS).unref();
  }

  /** Stops beating and removes the node's row (else it goes stale by itself). */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await this.store.dropNode(this.facts.id).catch(() => {});
  }

  /** Writes one heartbeat now (the timer's call); a failure is reported, never thrown. */
  beat(): Promise<void> {
    if (this.beating) return this.beating; // a slow database: one heartbeat at a time
    const node: NodeFacts = { ...this.facts, ...(this.address !== undefined ? { address: this.address } : {}) };
    this.beating = this.store
      .beatNode(node, FORGET_MS)
      .then(
        () => {
          if (this.failing) this.report.recovered();
          this.failing = false;
        },
        (e: unknown) => {
          if (!this.failing) this.report.failed(e);
          this.failing = true;
        },
      )
      .finally(() => (this.beating = undefined));
    return this.beating;
  }
}
