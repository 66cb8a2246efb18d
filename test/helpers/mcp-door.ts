/**
 * The one hub the MCP door's test files (mcp-door*.test.ts) each start, with alice and bob, and
 * what more than one of them does to it: send a direct task over A2A, count its open event streams.
 */
import { randomUUID } from 'node:crypto';
import { ADMIN_TOKEN, register, rpc, startTestHub, type Registered, type TestHub } from './hub.js';

/** The hub, with alice (who sends) and bob (who translates into French, found in the directory). */
export async function startDoorHub(): Promise<{ hub: TestHub; alice: Registered; bob: Registered }> {
  // A task may be forwarded to an agent's own endpoint on http://127.0.0.1, and a failed delivery is retried within seconds.
  const hub = await startTestHub({ MUSTER_ALLOW_PRIVATE_TARGETS: '1', MUSTER_DELIVERY_RETRIES: '1,1,2' });
  const alice = await register(hub, 'alice', { name: 'Alice', description: 'sends translation work' }, ADMIN_TOKEN);
  const bob = await register(
    hub,
    'bob',
    { name: 'Bob the translator', description: 'translates into French' },
    ADMIN_TOKEN,
  );
  return { hub, alice, bob };
}

/** alice sends bob a direct task over A2A (returnImmediately); answers its id. */
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
