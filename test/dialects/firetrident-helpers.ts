/**
 * What the FireTrident contract suites share: a colony (a Muster space) on a cluster of real
 * nodes, its owner, an orchestrator (the token a FireTrident client sends), workers, and the
 * seed's requests sent as its curl lines send them: raw JSON bodies with fetch.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { clusterOnTestDatabase } from '../helpers/cluster.js';
import { register, rest, type Registered } from '../helpers/hub.js';
import type { NodeProcess } from '../helpers/nodes.js';

export const ADMIN_TOKEN = 'firetrident-admin';
export const COLONY = 'links';

export interface Colony {
  owner: Registered;
  planner: Registered;
  workers: Registered[];
  outsider: Registered;
}

/** The nodes (two on PostgreSQL, one on SQLite) with a short blocking wait; `node(i)` takes turns. */
export function colonyCluster(label: string) {
  const cluster = clusterOnTestDatabase(label, ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN_TOKEN, MUSTER_RATE_LIMITS: 'off', MUSTER_INTENT_WAIT_S: '3' },
    startMs: 30_000,
  }));
  const node = (i: number): NodeProcess => cluster.nodes[i % cluster.nodes.length]!;
  return { cluster, node };
}

/** The colony `name` with an owner, an orchestrator and two workers (the suite's agents, made once). */
export async function makeColony(via: NodeProcess, name = COLONY, agents?: Colony): Promise<Colony> {
  const made = agents ?? {
    owner: await register(via, `owner-${name}`, {}, ADMIN_TOKEN),
    planner: await register(via, `planner-${name}`, {}, ADMIN_TOKEN),
    workers: [
      await register(via, `alice-${name}`, {}, ADMIN_TOKEN),
      await register(via, `bob-${name}`, {}, ADMIN_TOKEN),
    ],
    outsider: await register(via, `outsider-${name}`, {}, ADMIN_TOKEN),
  };
  const space = await rest(via, 'POST', 'api/spaces', {
    token: made.owner.token,
    body: { name, description: 'The links service', claim: 'open' },
  });
  expect(space.status).toBe(201);
  const role = (handle: string, r: string) =>
    rest(via, 'PUT', `api/spaces/${name}/members/${handle}`, { token: made.owner.token, body: { role: r } });
  expect((await role(made.planner.handle, 'orchestrator')).status).toBe(200);
  for (const w of made.workers) expect((await role(w.handle, 'worker')).status).toBe(200);
  return made;
}

/** One JSON-RPC request as the seed's `a2a` shell function sends it: the body as written, the token when given. */
export async function a2a(
  via: NodeProcess,
  body: string,
  token?: string,
  colony = COLONY,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${via.url}api/colonies/${colony}/a2a`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** A declaration of the seed's form with a fresh messageId: text then a data part. */
export const declaration = (text: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'SendMessage',
    params: {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }, { data }] },
      configuration: { returnImmediately: true },
      ...extra,
    },
  });

export const getTask = (id: string, rpcId = 2) =>
  JSON.stringify({ jsonrpc: '2.0', id: rpcId, method: 'GetTask', params: { id } });

/** A worker takes an intent and lands it natively, over the REST API (as the native suites do). */
export async function landNatively(
  via: NodeProcess,
  id: string,
  worker: Registered,
  landing: { summary: string; commit?: string; files?: { path: string; why?: string }[] },
): Promise<void> {
  const claimed = await rest(via, 'POST', `api/tasks/${id}/claim`, { token: worker.token, body: {} });
  expect(claimed.status).toBe(200);
  const landed = await rest(via, 'POST', `api/tasks/${id}/land`, { token: worker.token, body: landing });
  expect(landed.status).toBe(200);
}
