/**
 * The hub's status, as anyone may read it: its live nodes (this one marked) and how many tasks
 * were created in each of the last hours, counting only what an anonymous caller may see (the
 * view's list scope at the hub's base decides which; nothing here does).
 */
import { randomUUID } from 'node:crypto';
import { ANONYMOUS } from '../identity/caller.js';
import type { Store } from '../store/store.js';
import { LIVE_MS } from './heartbeat.js';
import type { View } from './view.js';
import { VERSION } from '../version.js';
import { isoTime } from '../wire/iso-time.js';

const HOUR_MS = 3_600_000;
/** The hours the status report counts tasks over. */
const REPORT_HOURS = 24;
/** How long a report's counts are kept: every anonymous page view must not count a day of tasks again. */
const COUNTS_KEPT_MS = 5_000;

/** The status anyone may read (GET /api/status, the web feed's status page): nodes without their addresses, which may be inside ones. */
export interface StatusReport {
  version: string;
  store: string;
  uptimeSeconds: number;
  nodes: { id: string; version: string; startedAt: string; lastSeenAt: string; self: boolean }[];
  tasksPerHour: { hours: number; counts: number[] };
}
export class HubStatus {
  /** This process's node id (its heartbeat's, hub/heartbeat.ts). */
  readonly nodeId = randomUUID();
  /** When this process's hub started, epoch ms. */
  readonly startedAt: number;
  /** The last count of tasks per hour, and when it was asked: kept COUNTS_KEPT_MS (a failed one is not kept). */
  private counted: { at: number; counts: Promise<number[]> } | undefined;

  constructor(
    private readonly store: Pick<Store, 'name' | 'liveNodes' | 'countCreated'>,
    private readonly view: View,
    private readonly clock: () => number,
  ) {
    this.startedAt = clock();
  }

  /** The report both doors show: the nodes seen within LIVE_MS (this one marked), and counts at most COUNTS_KEPT_MS old. */
  async report(): Promise<StatusReport> {
    const now = this.clock();
    if (!this.counted || now - this.counted.at > COUNTS_KEPT_MS)
      this.counted = { at: now, counts: this.tasksPerHour(now) };
    const counted = this.counted;
    const [nodes, counts] = await Promise.all([
      this.store.liveNodes(LIVE_MS),
      counted.counts.catch((e: unknown) => {
        if (this.counted === counted) this.counted = undefined;
        throw e;
      }),
    ]);
    return {
      version: VERSION,
      store: this.store.name,
      uptimeSeconds: this.uptimeSeconds(),
      nodes: nodes.map((n) => ({
        id: n.id,
        version: n.version,
        startedAt: isoTime(n.startedAt),
        lastSeenAt: isoTime(n.lastSeenAt),
        self: n.id === this.nodeId,
      })),
      tasksPerHour: { hours: REPORT_HOURS, counts },
    };
  }

  /** Whole seconds since this process's hub started. */
  uptimeSeconds(): number {
    return Math.floor((this.clock() - this.startedAt) / 1000);
  }

  /** Tasks created in each of the last REPORT_HOURS hours (the last one ending at `now`), oldest first, as an anonymous caller sees them. */
  private async tasksPerHour(now: number): Promise<number[]> {
    const scope = this.view.listScope(ANONYMOUS, { kind: 'hub' });
    if (!scope) return new Array<number>(REPORT_HOURS).fill(0);
    // The last hour ends just after now, so a task created this very millisecond counts.
    return this.store.countCreated(scope, now + 1 - REPORT_HOURS * HOUR_MS, HOUR_MS, REPORT_HOURS);
  }
}
