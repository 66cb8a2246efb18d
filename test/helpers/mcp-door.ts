/** The one hub the MCP door's test files (mcp-door*.test.ts) each start, with alice and bob. */
import { ADMIN_TOKEN, register, startTestHub, type Registered, type TestHub } from './hub.js';

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
