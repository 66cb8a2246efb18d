/**
 * A real hub on 127.0.0.1 with small HTTP limits and its log lines kept, for the
 * test/http-limits*.test.ts parts, and the raw node:net connections and answer readers they drive
 * it with.
 */
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { register, startTestHub, type Registered, type TestHub } from './hub.js';
import { sleep } from './nodes.js';

export const HEADERS_MS = 1_000;
export const REQUEST_MS = 2_000;
export const KEEP_ALIVE_MS = 1_000;
/** How long a blocking declaration may wait: far longer than the test needs. */
const INTENT_WAIT_S = 60;

export type Line = Record<string, unknown>;

export async function eventually<T>(what: string, probe: () => T | undefined, ms = 3_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

export interface Exchange {
  socket: Socket;
  /** Everything the hub sent so far. */
  received(): string;
  /** Resolves with the ms from the first write to the hub closing the connection. */
  closed: Promise<number>;
}

export interface LimitedHub {
  /** The hub's log lines, as it writes them. */
  readonly lines: Line[];
  /** The hub, alice and bob, once the file's beforeAll has run. */
  parties(): { hub: TestHub; alice: Registered; bob: Registered };
  /** A raw connection: writes `start`, then (if given) one byte of `drip` every `everyMs` until the hub closes it. */
  exchange(start: string, drip?: { bytes: string; everyMs: number }): Promise<Exchange>;
  /** The Host header line for the hub. */
  host(): string;
}

/** Starts the hub before the file's tests (limits HEADERS_MS, REQUEST_MS, KEEP_ALIVE_MS), registers alice and bob, destroys it after. */
export function limitedHub(): LimitedHub {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const text of String(chunk).split('\n')) if (text.trim()) lines.push(JSON.parse(text) as Line);
      done();
    },
  });
  let hub: TestHub;
  let alice: Registered;
  let bob: Registered;

  beforeAll(async () => {
    const env = {
      MUSTER_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      MUSTER_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
      MUSTER_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS),
      MUSTER_SSE_HEARTBEAT_MS: '200',
      MUSTER_INTENT_WAIT_S: String(INTENT_WAIT_S),
    };
    hub = await startTestHub(env, createLogger('info', { destination: sink, pretty: false }));
    [alice, bob] = [await register(hub, 'alice'), await register(hub, 'bob')];
  });
  afterAll(async () => {
    await hub?.destroy();
  });

  async function exchange(start: string, drip?: { bytes: string; everyMs: number }): Promise<Exchange> {
    const socket = connect(hub.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.on('error', () => {});
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('utf8')));
    const began = Date.now();
    const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - began)));
    if (start) socket.write(start);
    if (drip) {
      let i = 0;
      const timer = setInterval(
        () => socket.destroyed || socket.write(drip.bytes[i++ % drip.bytes.length]!),
        drip.everyMs,
      );
      void closed.then(() => clearInterval(timer));
    }
    return { socket, received: () => text, closed };
  }

  return {
    lines,
    parties: () => ({ hub, alice, bob }),
    exchange,
    host: () => `Host: 127.0.0.1:${hub.port}\r\n`,
  };
}

/** The status, headers and JSON body of the one HTTP answer in `text`. */
export function answerOf(text: string): { status: number; headers: Record<string, string>; body: any } {
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')), text.slice(text.indexOf('\r\n\r\n') + 4)];
  const [statusLine, ...fields] = head.split('\r\n');
  const headers = Object.fromEntries(
    fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body) };
}

/**
 * The check each part that starts the hub ends with: nothing it logged is a warning or an error,
 * and no line carries a stack. `moreThan`: fewer lines than the part surely wrote, so an empty log
 * cannot pass.
 */
export function expectQuietLog(lines: readonly Line[], moreThan: number): void {
  expect(lines.length).toBeGreaterThan(moreThan);
  expect(lines.filter((l) => Number(l['level']) >= 40)).toEqual([]);
  expect(JSON.stringify(lines)).not.toMatch(/\bat .*\.[jt]s:\d+/);
}
