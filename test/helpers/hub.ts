/**
 * Starts a real hub on 127.0.0.1 (a free port) on a fresh database: a real SQLite file in a temp
 * folder, or a fresh PostgreSQL database when MUSTER_TEST_PG is set (see database.ts).
 * Tests drive it over HTTP only: the SDK client, fetch, or the CLI.
 */
import { randomUUID } from 'node:crypto';
import { resolveConfig } from './config.js';
import { startHub, type RunningHub } from '../../src/server.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import { testDatabase, type TestDatabase } from './database.js';
import { TEST_HUB_DEFAULTS } from './defaults.js';

export const ADMIN_TOKEN = 'test-admin-token';

export interface TestHub extends RunningHub {
  /** The hub's database, to read rows beside it. */
  db: TestDatabase;
  /** Stops the hub and, `downMs` later, starts it again on the same file and port. */
  restart(downMs?: number): Promise<void>;
  /** Stops the hub and drops its database. */
  destroy(): Promise<void>;
}

/** `logger`: where the hub's lines go (default: nowhere). */
export async function startTestHub(
  env: Record<string, string> = {},
  logger: Logger = silentLogger(),
): Promise<TestHub> {
  const db = await testDatabase('hub');
  const config = () =>
    resolveConfig(
      { port: '0', host: '127.0.0.1', db: db.url },
      { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, ...TEST_HUB_DEFAULTS, ...env },
    );
  let running = await startHub(config(), { logger });
  const hub: TestHub = {
    db,
    get url() {
      return running.url;
    },
    get port() {
      return running.port;
    },
    get grpcPort() {
      return running.grpcPort;
    },
    get adminToken() {
      return running.adminToken;
    },
    close: () => running.close(),
    restart: async (downMs = 100) => {
      const port = running.port;
      await running.close();
      // Let clients notice their pooled keep-alive sockets were closed before the next request.
      await new Promise((r) => setTimeout(r, downMs));
      running = await startHub({ ...config(), port }, { logger });
    },
    destroy: async () => {
      await running.close().catch(() => {});
      await db.drop();
    },
  };
  return hub;
}

/** The timeout of a test that calls awayFromWindowEdge: it may wait up to its margin (30 s at most here) first. */
export const EDGE_WAIT_TIMEOUT_MS = 60_000;

/**
 * Quotas count in fixed windows (a minute, an hour): a test that fills one waits until it is not
 * within a few seconds of the window's end, so the whole run lands in one window.
 */
export async function awayFromWindowEdge(windowMs: number, marginMs = 5_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < marginMs) await new Promise((r) => setTimeout(r, left + 50));
}

export interface Registered {
  handle: string;
  token: string;
}

/** Registers an agent; with the admin's token the registration is not counted against the address. */
export async function register(
  hub: { url: string },
  handle: string,
  extra: Record<string, unknown> = {},
  token?: string,
): Promise<Registered> {
  const res = await fetch(`${hub.url}api/agents`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify({ handle, ...extra }),
  });
  if (res.status !== 201) throw new Error(`register ${handle}: ${res.status} ${await res.text()}`);
  const body = (await res.json()) as { token: string };
  return { handle, token: body.token };
}

/** Registers several agents at once, in order. */
export async function registerAll<const H extends readonly string[]>(
  hub: { url: string },
  ...handles: H
): Promise<{ [K in keyof H]: Registered }> {
  return (await Promise.all(handles.map((h) => register(hub, h)))) as { [K in keyof H]: Registered };
}

/** One raw JSON-RPC call; answers the HTTP status and the parsed body. */
export async function rpc(
  url: string,
  method: string,
  params: unknown,
  options: { token?: string; headers?: Record<string, string>; id?: number | string } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: options.id ?? 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** One REST call with JSON in and out. */
export async function rest(
  hub: { url: string },
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${hub.url}${path.replace(/^\//, '')}`, {
    method,
    headers: {
      ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/** `from` sends `to` a direct task over A2A (returnImmediately); answers its id. */
export async function sendTask(hub: { url: string }, from: Registered, to: string, text: string): Promise<string> {
  const message = { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
  const res = await rpc(
    `${hub.url}agents/${to}/`,
    'SendMessage',
    { message, configuration: { returnImmediately: true } },
    { token: from.token },
  );
  if (!res.body.result?.task) throw new Error(JSON.stringify(res.body));
  return res.body.result.task.id as string;
}

/** The hub's open event streams (a subscription holds one while it waits on the log). */
export async function openStreams(hub: { url: string }): Promise<number> {
  const metrics = await fetch(`${hub.url}metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return Number(/^muster_open_streams (\d+)/m.exec(await metrics.text())?.[1]);
}
