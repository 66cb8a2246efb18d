/**
 * What the KLYPIX contract suites share: the nodes (one on SQLite, two on PostgreSQL sharing a
 * database) and the requests a KLYPIX client sends, as its page shows them: JSON-RPC 2.0 POSTs
 * to the card's `url` (here /klypix/) with a bearer token, 0.3 messages (`kind`, `role: "user"`),
 * a data part `{skill, args}` or plain text.
 */
import { randomUUID } from 'node:crypto';
import { clusterOnTestDatabase } from '../helpers/cluster.js';
import { register, rpc } from '../helpers/hub.js';
import type { NodeProcess } from '../helpers/nodes.js';

export const ADMIN = 'klypix-suite-admin';
export const BOARD_TYPE = 'application/vnd.muster.board+json';

/** Nodes for a describe block; requests go round them (so over both on PostgreSQL). */
export function klypixNodes(label: string) {
  const cluster = clusterOnTestDatabase(label, ['A', 'B'], (db) => ({
    db,
    env: { MUSTER_ADMIN_TOKEN: ADMIN, MUSTER_RATE_LIMITS: 'off' },
    startMs: 30_000,
  }));
  const node = (i: number): NodeProcess => cluster.nodes[i % cluster.nodes.length]!;
  return { cluster, node };
}

export const agent = (via: NodeProcess, handle: string) => register(via, handle, {}, ADMIN);

/** KLYPIX's endpoint on a node: the card's url. */
export const endpoint = (via: NodeProcess) => `${via.url}klypix/`;

/** A data part naming a skill and its args, as the page's deterministic invocation shows it. */
export const skillPart = (skill: string, args: Record<string, unknown>) => ({ kind: 'data', data: { skill, args } });
export const textPart = (text: string) => ({ kind: 'text', text });

/** A 0.3 user message. */
export const message = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  kind: 'message',
  role: 'user',
  messageId: randomUUID(),
  parts,
  ...extra,
});

/** One JSON-RPC call to KLYPIX's endpoint. */
export const klypix = (via: NodeProcess, token: string | undefined, method: string, params: unknown) =>
  rpc(endpoint(via), method, params, token ? { token } : {});

/** message/send; answers the result (failing loudly on an error). */
export async function send(
  via: NodeProcess,
  token: string,
  parts: unknown[],
  extra: Record<string, unknown> = {},
  configuration?: Record<string, unknown>,
) {
  const res = await klypix(via, token, 'message/send', {
    message: message(parts, extra),
    ...(configuration ? { configuration } : {}),
  });
  if (!res.body.result) throw new Error(`message/send: ${JSON.stringify(res.body)}`);
  return res.body.result;
}

/** The board file a task answers, decoded from the file part of artifacts[0]. */
export function boardFileOf(task: any): any {
  const part = task.artifacts[0].parts[0];
  if (part.kind !== 'file') throw new Error(`artifacts[0].parts[0] is not a file: ${JSON.stringify(part)}`);
  return JSON.parse(Buffer.from(part.file.bytes, 'base64').toString('utf8'));
}

/** The data part of a task's result (artifacts[0]) or, waiting for input, of its status message. */
export const dataOf = (task: any): any =>
  (task.status.state === 'completed' ? task.artifacts[0].parts : task.status.message.parts).find(
    (p: any) => p.kind === 'data',
  ).data;
