/**
 * Announcements across processes, by LISTEN/NOTIFY. Every store names itself with a node id; a
 * LISTEN connection of its own (not from the pool) hears the other processes' notices and passes
 * them on with no events (the listener reads the log), skipping its own.
 *
 * Task commits: after a write commits, this process tells its own EventBus at once, with the
 * write's events, and queues a notice for the others. Queued notices go out together, many per
 * NOTIFY (notices.ts). Why not NOTIFY in the writing statement: PostgreSQL serializes the commits
 * of all transactions that NOTIFY under one lock held through their WAL flush, which halved task
 * creates per second on a 2-core box (measured side by side, 32 writers). A notice lost with a
 * process that dies between its commit and its NOTIFY is a hint lost, which the contract allows:
 * the log holds the data.
 * Token and agent-record changes are rare and matter at once (a revoked token's streams close):
 * they NOTIFY in their own statement, so a committed change is always announced.
 *
 * If the LISTEN connection drops, the store says so once in the log, polls every second for what
 * changed (by the database's clock: changed_at columns; inbox logs are announced as their keys,
 * store/inbox.ts, with the unnumbered events of agents listening) and reconnects with backoff; once it
 * listens again it polls once more, to cover the gap, and stops polling. The poll may repeat an
 * announcement the listener already made; announcements are hints.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { AgentChange, EventBus, TaskCommitted } from '../store.js';
import { numericInt8, SILENCE_LIMITS, storeError, type Db } from './database.js';
import { AGENTS, Notifier, TASKS } from './notices.js';

/** What writers use: announcements of their commits, and the NOTIFY payload an agent change sends itself. */
export interface Announcer {
  taskCommitted(commit: TaskCommitted): void;
  agentNotice(handle: string, change: AgentChange): string;
  agentChanged(handle: string, change: AgentChange): void;
}

export interface ListenOptions {
  /** Waits before reconnecting after a lost LISTEN connection: the first, doubling up to the most. */
  reconnectMs?: { first: number; most: number };
  pollEveryMs?: number;
  /** How often the LISTEN connection is asked a question; it has half of this to answer (default 10 s). */
  heartbeatMs?: number;
}

/** How far back each poll reaches before the last one: a statement's clock is read when it starts, and it commits later. */
const POLL_OVERLAP_MS = 3_000;

/** Changes since $1 (the database clock, ms; NULL: from now), with the clock of this poll. */
const POLL = `
WITH clock AS (SELECT muster_now_ms() AS now), since AS (SELECT COALESCE($1::int8, now) - ${POLL_OVERLAP_MS} AS at FROM clock)
SELECT 'task' AS kind, id AS name, last_seq AS seq, version::int8 AS mark FROM tasks, since WHERE changed_at >= since.at
UNION ALL SELECT 'task', 'inbox:' || handle, last_seq, last_seq::int8 FROM inbox_heads, since WHERE changed_at >= since.at -- inboxKey(handle)
UNION ALL SELECT 'task', 'inbox:' || e.handle, 0, max(e.id) FROM (SELECT DISTINCT handle FROM inbox_presence) p
  JOIN inbox_events e ON e.handle = p.handle AND e.seq IS NULL GROUP BY e.handle -- unnumbered (UNNUMBERED) events of agents listening
UNION ALL SELECT 'tokens', handle, 0, changed_at FROM tokens, since WHERE changed_at >= since.at
UNION ALL SELECT 'tokens', operator, 0, max(changed_at) FROM operator_tokens, since WHERE changed_at >= since.at GROUP BY operator
UNION ALL SELECT 'record', handle, 0, changed_at FROM agents, since WHERE changed_at >= since.at
UNION ALL SELECT 'clock', '', 0, now FROM clock`;

interface PollRow {
  kind: 'task' | 'tokens' | 'record' | 'clock';
  name: string;
  seq: number;
  mark: number;
}

export class Listener implements Announcer {
  /** Names this store's notifications, so it can skip its own. */
  readonly node = randomUUID();
  private client: pg.Client | undefined;
  private closing = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectDelay: number;
  /** The database clock of the last poll, and what it announced (a later poll skips those). */
  private since: number | null = null;
  private announced = new Set<string>();
  private polling: Promise<void> | undefined;
  private readonly notifier: Notifier;
  private heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly db: Db,
    private readonly bus: EventBus,
    private readonly log: (line: string) => void,
    private readonly options: ListenOptions = {},
  ) {
    this.reconnectDelay = this.firstDelay;
    this.notifier = new Notifier(url, this.node, log);
  }

  /** The application_name of the LISTEN connection (operators and tests find it by it). */
  get applicationName(): string {
    return `muster-listen ${this.node}`;
  }

  async start(): Promise<void> {
    try {
      this.client = await this.connect();
    } catch (e) {
      throw storeError(e);
    }
    this.heartbeat = setInterval(() => void this.beat(), this.heartbeatMs);
    this.heartbeat.unref();
  }

  /**
   * A LISTEN connection only reads, so a peer that went silent (a failover, a partition) would
   * look alive for as long as TCP takes to notice; a query now and then finds out, and the
   * connection is given up as lost (polling, then reconnecting) when it goes unanswered.
   */
  private async beat(): Promise<void> {
    const client = this.client;
    if (!client || this.closing) return;
    try {
      await client.query('SELECT 1');
    } catch (e) {
      this.lost(client, e as Error);
    }
  }

  agentNotice(handle: string, change: AgentChange): string {
    return JSON.stringify({ n: this.node, h: handle, c: change });
  }

  taskCommitted(commit: TaskCommitted): void {
    this.notifier.send(commit.log, commit.lastSeq);
    this.tell(() => this.bus.task(commit));
  }

  agentChanged(handle: string, change: AgentChange): void {
    this.tell(() => this.bus.agent(handle, change));
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.heartbeat);
    clearInterval(this.pollTimer);
    clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
    await this.polling;
    await this.notifier.close();
  }

  private get heartbeatMs(): number {
    return this.options.heartbeatMs ?? 10_000;
  }

  private get firstDelay(): number {
    return this.options.reconnectMs?.first ?? 250;
  }

  /** A listener that throws must not fail a write that has committed, nor the LISTEN connection's reading. */
  private tell(announce: () => void): void {
    try {
      announce();
    } catch (e) {
      this.log(`a store event listener failed: ${(e as Error).message}`);
    }
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: this.applicationName,
      types: numericInt8,
      ...SILENCE_LIMITS,
      query_timeout: this.heartbeatMs / 2,
    });
    client.on('notification', (n) => this.heard(n));
    client.on('error', (e) => this.lost(client, e));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${TASKS}; LISTEN ${AGENTS}`);
    } catch (e) {
      client.removeAllListeners('end');
      client.on('error', () => {}); // it is being given up: late errors have no one left to tell
      await client.end().catch(() => {});
      throw e;
    }
    return client;
  }

  /**
   * A notice from another process. Anyone who can connect to the database can NOTIFY on these
   * channels, so a payload is taken only in the shape this store sends; anything else is dropped.
   */
  private heard(n: pg.Notification): void {
    let notice: unknown;
    try {
      notice = JSON.parse(n.payload ?? '');
    } catch {
      return; // not one of ours
    }
    if (typeof notice !== 'object' || notice === null || (notice as { n?: unknown }).n === this.node) return; // ours were told after the commit, with the events
    const { t, h, c } = notice as { t?: unknown; h?: unknown; c?: unknown };
    if (n.channel === TASKS && Array.isArray(t)) {
      for (const pair of t) {
        if (Array.isArray(pair) && typeof pair[0] === 'string' && Number.isInteger(pair[1]))
          this.tell(() => this.bus.task({ log: pair[0], lastSeq: pair[1], events: [] }));
      }
    } else if (n.channel === AGENTS && typeof h === 'string' && (c === 'tokens' || c === 'record'))
      this.tell(() => this.bus.agent(h, c));
  }

  private lost(client: pg.Client, error?: Error): void {
    if (this.closing || client !== this.client) return;
    this.client = undefined;
    client.end().catch(() => {});
    this.log(
      `lost the PostgreSQL LISTEN connection${error ? ` (${error.message})` : ''}; polling for changes every second until it is back`,
    );
    this.since = null;
    this.announced.clear();
    this.pollTimer = setInterval(() => void this.poll(), this.options.pollEveryMs ?? 1_000);
    this.pollTimer.unref();
    void this.poll();
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.reconnectTimer = setTimeout(() => void this.reconnect(), this.reconnectDelay);
    this.reconnectTimer.unref();
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, this.options.reconnectMs?.most ?? 10_000);
  }

  private async reconnect(): Promise<void> {
    let client: pg.Client;
    try {
      client = await this.connect();
    } catch {
      if (!this.closing) this.scheduleReconnect();
      return;
    }
    if (this.closing) {
      await client.end().catch(() => {});
      return;
    }
    this.client = client;
    this.reconnectDelay = this.firstDelay;
    clearInterval(this.pollTimer);
    this.log('listening on PostgreSQL again');
    await this.polling;
    await this.poll(); // what changed between the last poll and LISTEN
  }

  /** One poll at a time; a failed one (the database is down too) is simply tried again next second. */
  private poll(): Promise<void> {
    this.polling ??= this.pollOnce()
      .catch(() => {})
      .finally(() => (this.polling = undefined));
    return this.polling;
  }

  private async pollOnce(): Promise<void> {
    const { rows } = await this.db.query<PollRow>(POLL, [this.since]);
    const announced = new Set<string>();
    const agents = new Map<string, [string, AgentChange]>(); // one announcement per agent and change, however many tokens changed
    for (const row of rows) {
      if (row.kind === 'clock') {
        this.since = row.mark;
        continue;
      }
      // A row changed again since the last poll has another mark (version, or changed_at).
      const key = `${row.kind}:${row.name}:${row.mark}`;
      announced.add(key);
      if (this.announced.has(key) || this.closing) continue;
      if (row.kind === 'task') this.tell(() => this.bus.task({ log: row.name, lastSeq: row.seq, events: [] }));
      else agents.set(`${row.kind}:${row.name}`, [row.name, row.kind]);
    }
    for (const [handle, change] of agents.values()) this.tell(() => this.bus.agent(handle, change));
    this.announced = announced;
  }
}
