/**
 * Real `muster serve` child processes ("nodes") for multi-process tests: spawned as
 * `muster serve …` (muster-command.ts), each on a free port,
 * ready once it prints its "Admin token" line. Their stdout and stderr are kept, so a failing test
 * can show what each node said, and their log lines (JSON, since stdout is a pipe) can be read. Also a raw SSE reader that keeps a stream open while a test
 * drives changes elsewhere, and exposes the SSE ids the SDK client hides.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { TEST_HUB_DEFAULTS } from './defaults.js';
import { MUSTER_COMMAND } from './muster-command.js';
import { postRpc, sseBlocks } from './sse.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The test runner's environment without any MUSTER_* variable (MUSTER_TEST_PG included), plus `extra`. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const clean = { ...process.env };
  for (const key of Object.keys(clean)) if (key.startsWith('MUSTER_')) delete clean[key];
  return { ...clean, ...extra };
}

/** A port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

/** Every child still running: killed if the test process exits without stopping them. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export interface NodeProcess {
  name: string;
  port: number;
  /** The node's base URL, ending in `/`. */
  url: string;
  child: ChildProcess;
  /** Everything the node wrote so far, stdout and stderr interleaved. */
  output(): string;
  /** False once the process has exited. */
  readonly alive: boolean;
  /** Resolves with the exit code (or the signal's name) when the process has exited. */
  exited: Promise<number | string | null>;
  /** Sends `signal` and waits for the process to exit (at most `ms`, then SIGKILL). */
  stop(signal?: NodeJS.Signals, ms?: number): Promise<number | string | null>;
}

export interface NodeOptions {
  /** The PostgreSQL (or sqlite:) URL: passed as --db, or as MUSTER_DB when `dbVia` is 'env'. */
  db: string;
  dbVia?: 'flag' | 'env';
  /** The environment the node gets on top of a clean one (MUSTER_* of the runner removed) and the test hubs' defaults (TEST_HUB_DEFAULTS). */
  env?: Record<string, string>;
  port?: number;
  /** How long to wait for the "Admin token" line. */
  startMs?: number;
  extraArgs?: string[];
  /** The working folder (default: the repository's root). */
  cwd?: string;
  /** An installed `muster` command to run instead of this repository's src/ through tsx. */
  bin?: string;
}

/** Starts one `muster serve`; resolves when it has printed its "Admin token" line, rejects if it exits first. */
export async function startNode(name: string, options: NodeOptions): Promise<NodeProcess> {
  const port = options.port ?? (await freePort());
  const env: Record<string, string> = { ...TEST_HUB_DEFAULTS, ...options.env };
  const args = ['serve', '--host', '127.0.0.1', '--port', String(port), ...(options.extraArgs ?? [])];
  if (options.dbVia === 'env') env['MUSTER_DB'] = options.db;
  else args.push('--db', options.db);
  const [command, ...prefix] = options.bin ? [options.bin] : [process.execPath, ...MUSTER_COMMAND];
  const child = spawn(command!, [...prefix, ...args], {
    cwd: options.cwd ?? root,
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let out = '';
  let alive = true;
  const append = (stream: string) => (chunk: Buffer) => {
    out += chunk
      .toString('utf8')
      .split(/(?<=\n)/)
      .map((line) => `[${name} ${stream}] ${line}`)
      .join('');
  };
  child.stdout!.on('data', append('out'));
  child.stderr!.on('data', append('err'));
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => {
      alive = false;
      running.delete(child);
      resolve(code ?? signal);
    }),
  );
  const node: NodeProcess = {
    name,
    port,
    url: `http://127.0.0.1:${port}/`,
    child,
    output: () => out,
    get alive() {
      return alive;
    },
    exited,
    stop: async (signal = 'SIGTERM', ms = 5_000) => {
      if (!alive) return exited;
      child.kill(signal);
      const timer = setTimeout(() => alive && child.kill('SIGKILL'), ms);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
  await new Promise<void>((resolve, reject) => {
    // A node that never started is killed here: the test that wanted it has no handle to stop it.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`node ${name} did not start within ${options.startMs ?? 20_000} ms:\n${out}`));
    }, options.startMs ?? 20_000);
    const check = () => {
      if (/Admin token/.test(out)) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`node ${name} exited (${code}) before it started:\n${out}`));
    });
  });
  const printed = logLines(out).find((line) => String(line['msg']).startsWith('Muster is listening on'))?.['url'];
  if (printed && printed !== node.url) throw new Error(`node ${name} says it listens on ${printed}, not ${node.url}`);
  return node;
}

/** The JSON log lines in a node's output (stdout and stderr), in order; other lines are left out. */
export function logLines(output: string): Record<string, unknown>[] {
  return output.split('\n').flatMap((line) => {
    const json = line.replace(/^\[[^\]]* (out|err)\] /, '');
    if (!json.startsWith('{')) return [];
    try {
      return [JSON.parse(json) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

/**
 * Starts several nodes at the same moment on one database (named A, B, C, …). If any fails, the
 * others are killed and the error carries every node's output.
 */
export async function startNodes(
  names: readonly string[],
  options: (name: string, index: number) => NodeOptions,
): Promise<NodeProcess[]> {
  const started = await Promise.allSettled(names.map((name, i) => startNode(name, options(name, i))));
  const failed = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed.length === 0) return started.map((s) => (s as PromiseFulfilledResult<NodeProcess>).value);
  await stopNodes(
    started.filter((s): s is PromiseFulfilledResult<NodeProcess> => s.status === 'fulfilled').map((s) => s.value),
    'SIGKILL',
  );
  throw new Error(failed.map((f) => (f.reason as Error).message).join('\n'));
}

/** Stops every node still running (SIGKILL by default) and waits for them to exit. */
export async function stopNodes(nodes: readonly NodeProcess[], signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  await Promise.all(nodes.map((n) => n.stop(signal, 3_000)));
}

/** The tail of every node's output, for a failure message. */
export function nodeLogs(nodes: readonly NodeProcess[], tailChars = 4_000): string {
  return nodes
    .map((n) => `--- node ${n.name} (${n.url}, ${n.alive ? 'running' : 'exited'}) ---\n${n.output().slice(-tailChars)}`)
    .join('\n');
}

export interface SseEvent {
  /** The SSE `id:` line (the task's event seq), when the block had one. */
  id?: number;
  data: any;
}

export interface SseStream {
  /** The HTTP status of the answer. */
  status: number;
  /** The JSON body when the answer was not a stream (a refusal). */
  json?: any;
  /** The events so far, in arrival order (keep-alive comments left out). */
  events: SseEvent[];
  /** Resolves when the stream has ended (the server closed it, or `close()`), or the connection failed. */
  ended: Promise<void>;
  readonly done: boolean;
  /** The error that ended the stream, if it was not a clean close. */
  readonly error: unknown;
  /** Resolves with the events once there are at least `count` (rejects after `ms`, or if the stream ends first). */
  waitFor(count: number, ms?: number): Promise<SseEvent[]>;
  /** Resolves once the stream has ended (rejects after `ms`). */
  waitEnd(ms?: number): Promise<SseEvent[]>;
  close(): void;
}

/**
 * Opens a JSON-RPC streaming call as raw SSE (a POST to a base) and reads it in the background.
 * Resolves once the answer's headers have come.
 */
export async function openSse(
  url: string,
  method: string,
  params: unknown,
  options: { token?: string; lastEventId?: number | string; rpcId?: number | string } = {},
): Promise<SseStream> {
  const abort = new AbortController();
  const res = await postRpc(url, method, params, { ...options, signal: abort.signal });
  const events: SseEvent[] = [];
  let done = false;
  let error: unknown;
  if (!res.headers.get('content-type')?.includes('text/event-stream')) {
    const text = await res.text();
    const json = text ? JSON.parse(text) : undefined;
    return {
      status: res.status,
      json,
      events,
      ended: Promise.resolve(),
      done: true,
      error: undefined,
      waitFor: async () => {
        throw new Error(`not a stream: ${res.status} ${text}`);
      },
      waitEnd: async () => events,
      close: () => {},
    };
  }
  const reader = res.body!.getReader();
  const ended = (async () => {
    try {
      for await (const block of sseBlocks(reader))
        if (block.data !== undefined)
          events.push({ ...(block.id !== undefined ? { id: block.id } : {}), data: block.data });
    } catch (e) {
      if (!abort.signal.aborted) error = e;
    } finally {
      done = true;
    }
  })();
  const stream: SseStream = {
    status: res.status,
    events,
    ended,
    get done() {
      return done;
    },
    get error() {
      return error;
    },
    waitFor: async (count, ms = 10_000) => {
      const until = Date.now() + ms;
      while (events.length < count) {
        if (done)
          throw new Error(`the stream ended after ${events.length} of ${count} events: ${JSON.stringify(events)}`);
        if (Date.now() > until)
          throw new Error(
            `the stream has ${events.length} of ${count} events after ${ms} ms: ${JSON.stringify(events)}`,
          );
        await sleep(10);
      }
      return events;
    },
    waitEnd: async (ms = 10_000) => {
      const timeout = sleep(ms).then(() => 'timeout' as const);
      if ((await Promise.race([ended.then(() => 'ended' as const), timeout])) === 'timeout') {
        throw new Error(`the stream did not end within ${ms} ms; events: ${JSON.stringify(events)}`);
      }
      return events;
    },
    close: () => abort.abort(),
  };
  return stream;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `promise`, or a rejection naming `what` after `ms`. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `probe` until it answers something other than undefined (rejects after `ms`). */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  ms = 10_000,
  everyMs = 50,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(everyMs);
  }
}
