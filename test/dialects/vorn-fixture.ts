/**
 * What the Vorn contract suites share: the nodes (one on SQLite, two on PostgreSQL sharing a
 * database), and the requests a Vorn client sends, as its OpenAPI document shows them: raw HTTP
 * with a bearer token (an agent's, or an operator's for the person who operates agents).
 */
import { randomUUID } from 'node:crypto';
import { clusterOnTestDatabase } from '../helpers/cluster.js';
import { register, rest, rpc, type Registered } from '../helpers/hub.js';
import type { NodeProcess } from '../helpers/nodes.js';

export const ADMIN = 'vorn-suite-admin';

/** Nodes for a describe block; `env` on top of the admin token. */
export function vornNodes(label: string, env: Record<string, string> = {}) {
  const cluster = clusterOnTestDatabase(label, ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN, ...env },
    startMs: 30_000,
  }));
  /** The i-th node, round the ones running (so requests spread over both on PostgreSQL). */
  const node = (i: number): NodeProcess => cluster.nodes[i % cluster.nodes.length]!;
  return { cluster, node };
}

export interface Agent extends Registered {
  id: string;
}

/** Registers an agent (with an operator's token, it is that operator's), and reads its agent id. */
export async function agent(via: NodeProcess, handle: string, token?: string, extra = {}): Promise<Agent> {
  const made = await register(via, handle, extra, token ?? ADMIN);
  const profile = await rest(via, 'GET', `api/agents/${handle}`);
  return { ...made, id: profile.body.agentId };
}

/** An operator (Vorn's human caller), made by the admin. */
export async function operator(via: NodeProcess, handle: string): Promise<{ handle: string; token: string }> {
  const made = await rest(via, 'POST', 'api/operators', { token: ADMIN, body: { handle } });
  if (made.status !== 201) throw new Error(`operator ${handle}: ${JSON.stringify(made.body)}`);
  return { handle, token: made.body.token };
}

/** A Vorn message: `role: "user"`, 0.3 parts. */
export const vornMessage = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  role: 'user',
  messageId: randomUUID(),
  parts,
  ...extra,
});

/** `message/send` to an agent's Vorn endpoint. */
export const vornSend = (via: NodeProcess, to: string, token: string | undefined, message: unknown) =>
  rpc(`${via.url}v1/a2a/${to}`, 'message/send', { message }, token ? { token } : {});

/** Sends a text task and answers its id (failing loudly otherwise). */
export async function task(via: NodeProcess, from: Agent, to: string, text = 'please', metadata?: object) {
  const sent = await vornSend(via, to, from.token, vornMessage([{ kind: 'text', text }], metadata ? { metadata } : {}));
  if (!sent.body.result) throw new Error(`send to ${to}: ${JSON.stringify(sent.body)}`);
  return sent.body.result.id as string;
}
