/**
 * This process's task notices to the others. Whatever was queued while the last NOTIFY was out
 * goes in the next one, so under load one statement carries many notices (each payload under
 * NOTIFY's 8000 bytes). Its connection (not from the pool) commits with synchronous_commit off:
 * NOTIFY's lock is then held for microseconds, not through a WAL flush. A notice needs no
 * durability: it is sent after the write it announces is on disk.
 */
import pg from 'pg';
import { SILENCE_LIMITS } from './database.js';
import { UNNUMBERED } from '../inbox.js';

/** The channels: task commits, and changes to agents (their tokens, their records). */
export const TASKS = 'muster_tasks';
export const AGENTS = 'muster_agents';

/** A NOTIFY payload must stay under 8000 bytes; a batch of task notices is cut well below that. */
const PAYLOAD_BYTES = 7_000;

export class Notifier {
  private queue: [string, number][] = [];
  /** The keys queued UNNUMBERED: one such notice a batch says all a receiver learns from it (read the log). */
  private pokes = new Set<string>();
  private client: Promise<pg.Client> | undefined;
  private sending: Promise<void> | undefined;
  private failing = false;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly node: string,
    private readonly log: (line: string) => void,
  ) {}

  send(taskId: string, lastSeq: number): void {
    if (this.closed) return;
    if (lastSeq === UNNUMBERED) {
      if (this.pokes.has(taskId)) return;
      this.pokes.add(taskId);
    }
    this.queue.push([taskId, lastSeq]);
    if (this.queue.length === 1 && !this.sending) setImmediate(() => this.flush());
  }

  /** Sends what is queued, then disconnects. */
  async close(): Promise<void> {
    this.closed = true;
    this.flush();
    while (this.sending) await this.sending;
    const client = this.client;
    this.client = undefined;
    await client?.then((c) => c.end()).catch(() => {});
  }

  private flush(): void {
    if (this.sending || this.queue.length === 0) return;
    const notices = this.queue;
    this.queue = [];
    this.pokes.clear();
    this.sending = this.notify(notices).finally(() => {
      this.sending = undefined;
      this.flush(); // what queued up meanwhile
    });
  }

  private async notify(notices: [string, number][]): Promise<void> {
    try {
      const client = await (this.client ??= this.connect());
      await client.query({
        name: 'muster_notify',
        text: `SELECT pg_notify('${TASKS}', p) FROM unnest($1::text[]) AS p`,
        values: [this.payloads(notices)],
      });
      if (this.failing) this.log('sending task notices to PostgreSQL again');
      this.failing = false;
    } catch (e) {
      // Hints lost: the other processes read the log when they next hear of these tasks.
      const client = this.client;
      this.client = undefined;
      client?.then((c) => c.end()).catch(() => {});
      if (!this.failing) this.log(`could not send task notices to PostgreSQL (${(e as Error).message})`);
      this.failing = true;
    }
  }

  private connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: `muster-notify ${this.node}`,
      options: '-c synchronous_commit=off',
      ...SILENCE_LIMITS,
      query_timeout: 10_000,
    });
    client.on('error', () => {}); // a dropped connection fails the next send, which replaces it
    return client.connect().then(() => client);
  }

  /** The notices as JSON payloads, each under PAYLOAD_BYTES. */
  private payloads(notices: [string, number][]): string[] {
    const payloads: string[] = [];
    let batch: [string, number][] = [];
    let bytes = 0;
    for (const notice of notices) {
      const size = Buffer.byteLength(JSON.stringify(notice)) + 1; // as it is written in the payload, with its comma
      if (batch.length && bytes + size > PAYLOAD_BYTES) {
        payloads.push(JSON.stringify({ n: this.node, t: batch }));
        [batch, bytes] = [[], 0];
      }
      batch.push(notice);
      bytes += size;
    }
    if (batch.length) payloads.push(JSON.stringify({ n: this.node, t: batch }));
    return payloads;
  }
}
