/**
 * A real hub with alice, bob and carol registered, for the test/errors-in-words*.test.ts parts,
 * and the messages and direct tasks they send through it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { registerAll, rpc, startTestHub, type Registered, type TestHub } from './hub.js';

export const message = (extra: Record<string, unknown> = {}) => ({
  messageId: randomUUID(),
  role: 'ROLE_USER',
  parts: [{ text: 'hi' }],
  ...extra,
});
/** Nobody answers bob here: a send that blocked would wait out the hub's wait. */
export const AT_ONCE = { returnImmediately: true };

export interface WordsHub {
  /** The hub and its three agents, once the file's beforeAll has run. */
  parties(): { hub: TestHub; alice: Registered; bob: Registered; carol: Registered };
  /** bob's A2A base. */
  bobBase(): string;
  /** Sends a direct task alice → bob and answers its id. */
  aliceToBob(): Promise<string>;
}

/** Starts the hub before the file's tests and registers alice, bob and carol; destroys it after. */
export function wordsHub(): WordsHub {
  let hub: TestHub;
  let alice: Registered;
  let bob: Registered;
  let carol: Registered;

  beforeAll(async () => {
    hub = await startTestHub();
    [alice, bob, carol] = await registerAll(hub, 'alice', 'bob', 'carol');
  });
  afterAll(() => hub.destroy());

  const bobBase = () => `${hub.url}agents/bob/`;

  async function aliceToBob(): Promise<string> {
    const sent = await rpc(
      bobBase(),
      'SendMessage',
      { message: message(), configuration: AT_ONCE },
      { token: alice.token },
    );
    expect(sent.body.result?.task?.id, JSON.stringify(sent.body)).toBeTruthy();
    return sent.body.result.task.id as string;
  }

  return { parties: () => ({ hub, alice, bob, carol }), bobBase, aliceToBob };
}
