/**
 * A hub for the work-intent tests (intents-*.test.ts): five agents, the space `links` (made by
 * owner, with orch its orchestrator and worker and other its workers), and the calls that declare
 * intents at a space's base over JSON-RPC and work them over REST. A blocking declaration waits
 * 3 s at most (MUSTER_INTENT_WAIT_S), so a test of one that nobody lands ends soon.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { registerAll, rest, rpc, startTestHub, type Registered, type TestHub } from './hub.js';

export interface IntentsHub {
  hub: TestHub;
  owner: Registered;
  orch: Registered;
  worker: Registered;
  other: Registered;
  /** Registered but a member of no space. */
  outsider: Registered;
  /** The A2A base of a space. */
  spaceUrl(name: string): string;
  /** Declares an intent without waiting; answers the task (throws on a JSON-RPC error). */
  declare(space: string, text: string, data: Record<string, unknown>, token?: string): Promise<any>;
  /** A worker's REST action on an intent: claim, heartbeat, progress, input-required, land. */
  act(id: string, action: string, token: string, body?: unknown): ReturnType<typeof rest>;
  /** Makes a space owned by owner, with orch, worker and other as members like `links`. */
  makeSpace(name: string, extra?: Record<string, unknown>): Promise<void>;
}

/** SendMessage params declaring an intent: the title (and why) as text, the rest as data; answers at once. */
export const declaration = (text: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }, { data }], ...extra },
  configuration: { returnImmediately: true },
});

export async function startIntentsHub(): Promise<IntentsHub> {
  const hub = await startTestHub({ MUSTER_INTENT_WAIT_S: '3' });
  const [owner, orch, worker, other, outsider] = await registerAll(hub, 'owner', 'orch', 'worker', 'other', 'outsider');
  const spaceUrl = (name: string) => `${hub.url}spaces/${name}/`;
  const makeSpace = async (name: string, extra: Record<string, unknown> = {}) => {
    const made = await rest(hub, 'POST', 'api/spaces', { token: owner.token, body: { name, ...extra } });
    expect(made.status).toBe(201);
    await rest(hub, 'PUT', `api/spaces/${name}/members/${orch.handle}`, {
      token: owner.token,
      body: { role: 'orchestrator' },
    });
    await rest(hub, 'PUT', `api/spaces/${name}/members/${worker.handle}`, {
      token: owner.token,
      body: { role: 'worker' },
    });
    await rest(hub, 'PUT', `api/spaces/${name}/members/${other.handle}`, {
      token: owner.token,
      body: { role: 'worker' },
    });
  };
  await makeSpace('links', { description: 'The links service' });
  return {
    hub,
    owner,
    orch,
    worker,
    other,
    outsider,
    spaceUrl,
    declare: async (space, text, data, token = orch.token) => {
      const res = await rpc(spaceUrl(space), 'SendMessage', declaration(text, data), { token });
      if (!res.body.result) throw new Error(JSON.stringify(res.body));
      return res.body.result.task;
    },
    act: (id, action, token, body = {}) => rest(hub, 'POST', `api/tasks/${id}/${action}`, { token, body }),
    makeSpace,
  };
}
