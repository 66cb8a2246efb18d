/**
 * The hub's status, as anyone may read it: its live nodes (this one marked) and how many tasks
 * were created in each of the last hours, counting only what an anonymous caller may see (the
 * view's list scope at the hub's base decides which; nothing here does).
 */
import { randomUUID } from 'node:crypto';
import { invalidParams } from '../errors/hub-error.js';
import { ANONYMOUS } from '../identity/caller.js';
import type { Store } from '../store/store.js';
import { LIVE_MS } from './heartbeat.js';
import type { View } from './view.js';
import { VERSION } from '../version.js';

const HOUR_MS = 3_600_000;
/** The hours the status report counts tasks over. */
const REPORT_HOURS = 24;
/** How long a report's counts are kept: every anonymous page view must not count a day of tasks again. */
const COUNTS_KEPT_MS = 5_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The status anyone may read (GET /api/status, the web feed's status page): nodes without their addresses, which may be inside ones. */
export interface StatusReport {
  version: string;
  store: string;
  uptimeSeconds: number;
  nodes: { id: string; version: string; startedAt: string; lastSeenAt: string; self: boolean }[];
  tasksPerHour: { hours: number; counts: number[] };
}
/** The longest span tasksPerHour counts: a month of hours. */
const MOST_HOURS = 24 * 31;

export interface NodeInfo {
  id: string;
  version: string;
  /** Epoch ms. */
  startedAt: number;
  /** Its last heartbeat, epoch ms. */
  lastSeenAt: number;
  address?: string;
  /** The node that answers. */
  self: boolean;
}

export class HubStatus {
  /** This process's node id (its heartbeat's, hub/heartbeat.ts). */
  readonly nodeId = randomUUID();
  /** When this process's hub started, epoch ms. */
  readonly startedAt: number;

  constructor(
    private readonly store: Pick<Store, 'name' | 'liveNodes' | 'countCreated'>,
    private readonly view: View,
    private readonly clock: () => number,
  ) {
    this.startedAt = clock();
  }

  private counted: { at: number; counts: Promise<number[]> } | undefined;

  /** The report both doors show; its counts are at most COUNTS_KEPT_MS old. */
  async report(): Promise<StatusReport> {
    const now = this.clock();
    if (!this.counted || now - this.counted.at > COUNTS_KEPT_MS) this.counted = { at: now, counts: this.tasksPerHour(REPORT_HOURS) };
    const counted = this.counted;
    const [nodes, counts] = await Promise.all([this.nodes(), counted.counts.catch((e: unknown) => {
      if (this.counted === counted) this.counted = undefined; // a failed count is not kept
      throw e;
    })]);
    return {
      version: VERSION,
      store: this.store.name,
      uptimeSeconds: this.uptimeSeconds(),
      nodes: nodes.map((n) => ({ id: n.id, version: n.version, startedAt: iso(n.startedAt), lastSeenAt: iso(n.lastSeenAt), self: n.self })),
      tasksPerHour: { hours: REPORT_HOURS, counts },
    };
  }

  /** Whole seconds since this process's hub started. */
  uptimeSeconds(): number {
    return Math.floor((this.clock() - this.startedAt) / 1000);
  }

  /** The nodes seen within the last LIVE_MS, oldest start first. */
  async nodes(): Promise<NodeInfo[]> {
    return (await this.store.liveNodes(LIVE_MS)).map((node) => ({ ...node, self: node.id === this.nodeId }));
  }

  /** Tasks created in each of the last `hours` hours (the last one ending now), oldest first, as an anonymous caller sees them. */
  async tasksPerHour(hours = 24): Promise<number[]> {
    if (!Number.isInteger(hours) || hours < 1 || hours > MOST_HOURS) throw invalidParams('hours', `must be a whole number from 1 to ${MOST_HOURS}`);
    const scope = this.view.listScope(ANONYMOUS, { kind: 'hub' });
    if (!scope) return new Array<number>(hours).fill(0);
    // The last hour ends just after now, so a task created this very millisecond counts.
    return this.store.countCreated(scope, this.clock() + 1 - hours * HOUR_MS, HOUR_MS, hours);
  }
}
