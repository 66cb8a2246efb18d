import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Request latency buckets in seconds: a cached read takes well under a millisecond, a stream minutes. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120];
const COMMIT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
const LAG_BUCKETS = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export type DoorLabel = 'jsonrpc' | 'rest';
/** What became of one delivery attempt: it arrived, it waits for a retry, or it was given up. */
export type DeliveryResult = 'delivered' | 'retry' | 'failed';

interface RequestSeries {
  count: Counter.Internal;
  latency: Histogram.Internal<string>;
}

/**
 * The metrics of one hub, in a registry of its own (several hubs may share a process, in tests).
 * Every name starts with `muster_`; labels are bounded: a JSON-RPC method outside the known set,
 * a route that does not exist, a delivery's channel are folded into a few fixed values.
 */
export class HubMetrics {
  readonly registry = new Registry();
  private readonly requests = new Counter({ name: 'muster_requests_total', help: 'HTTP requests answered, by door, method and status', labelNames: ['door', 'method', 'status'], registers: [this.registry] });
  private readonly latency = new Histogram({ name: 'muster_request_duration_seconds', help: 'Time from request to answer (to the end, for a stream), by door and method', labelNames: ['door', 'method'], buckets: LATENCY_BUCKETS, registers: [this.registry] });
  private readonly tasks = new Counter({ name: 'muster_tasks_written_total', help: 'Task writes committed by this process, by task kind and the state written', labelNames: ['kind', 'state'], registers: [this.registry] });
  private readonly streams = new Gauge({ name: 'muster_open_streams', help: 'Event streams (SSE) open on this process', registers: [this.registry] });
  private readonly deliveries = new Counter({ name: 'muster_deliveries_total', help: 'Delivery attempts finished, by channel (push, forward) and outcome (delivered, retry, failed)', labelNames: ['channel', 'outcome'], registers: [this.registry] });
  private readonly lag = new Histogram({ name: 'muster_scheduler_lag_seconds', help: 'How late due work ran after it fell due, by worker (outbox, deadlines)', labelNames: ['worker'], buckets: LAG_BUCKETS, registers: [this.registry] });
  private readonly commitLatency = new Histogram({ name: 'muster_store_commit_seconds', help: 'Time one store commit took', buckets: COMMIT_BUCKETS, registers: [this.registry] });
  private readonly commitBatch = new Histogram({ name: 'muster_store_commit_batch_size', help: 'Writes that shared one commit', buckets: BATCH_BUCKETS, registers: [this.registry] });
  /** Label children made once per series: the per-request path only looks one up. */
  private readonly series = new Map<string, RequestSeries>();

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'muster_' });
  }

  /** The outbox backlog gauge, read through `backlog` at each scrape. */
  backlogFrom(backlog: () => Promise<number>): void {
    new Gauge({
      name: 'muster_outbox_backlog',
      help: 'Deliveries waiting to be sent (pending), read from the store at scrape time',
      registers: [this.registry],
      async collect() {
        // A store that cannot answer leaves the last figure; /health and the request errors say why.
        await backlog().then((count) => this.set(count), () => {});
      },
    });
  }

  /** One answered request; 'aborted' when the client left before the answer. */
  request(door: DoorLabel, method: string, status: number | 'aborted', seconds: number): void {
    const key = `${door} ${method} ${status}`;
    let series = this.series.get(key);
    if (!series) this.series.set(key, (series = { count: this.requests.labels(door, method, String(status)), latency: this.latency.labels(door, method) }));
    series.count.inc();
    series.latency.observe(seconds);
  }

  taskWritten(kind: string, state: string): void {
    this.tasks.labels(kind, state).inc();
  }

  streamOpened(): void {
    this.streams.inc();
  }

  streamClosed(): void {
    this.streams.dec();
  }

  delivery(channel: 'push' | 'forward', result: DeliveryResult): void {
    this.deliveries.labels(channel, result).inc();
  }

  /** Due work ran `ms` after it fell due. */
  schedulerLag(worker: string, ms: number): void {
    this.lag.labels(worker).observe(Math.max(0, ms) / 1000);
  }

  commit(seconds: number, batchSize: number): void {
    this.commitLatency.observe(seconds);
    this.commitBatch.observe(batchSize);
  }

  /** The Prometheus text exposition of everything above. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
