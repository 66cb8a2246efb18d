/**
 * Writes that run once per key: a SendMessage per messageId, a REST change per Idempotency-Key.
 * The receipt is written in the write's own transaction (store/receipts.ts), so the key is taken
 * exactly when the write stands, whichever process wrote it.
 */
import { hash } from 'node:crypto';
import type { Task } from '../a2a/types.js';
import { HubError } from '../errors/hub-error.js';
import { callerName, type Caller } from '../identity/caller.js';
import type { Receipt, Store } from '../store/store.js';
import type { Door } from './kind.js';

/** Keeps the result of a write so a retry with the same key gets the same answer. */
export interface Idempotency {
  scope: string;
  key: string;
  fingerprint: string;
}

/**
 * A door as a message's fingerprint names it: a kind's own base by its name alone, as the memory
 * base was named before kind bases existed, so a message retried across that upgrade still matches.
 */
export const doorPrint = (door: Door): unknown => (door.kind === 'base' ? { kind: door.name } : door);

/** A request's SHA-256, in one shot: no Hash object per request (every SendMessage takes one). */
export const fingerprintOf = (value: unknown): string => hash('sha256', JSON.stringify(value), 'base64url');

/** A REST change's key: scoped to its caller, bound to what the request asked. */
export const restKey = (caller: Caller, key: string, request: unknown): Idempotency => ({
  scope: `rest:${callerName(caller)}`,
  key,
  fingerprint: fingerprintOf(request),
});

/**
 * Runs a write once per key: a retry with the same key and request answers `answer(taskId)` of
 * the task it wrote (as it stands now) and changes nothing; the same key with another request is
 * refused. `precheck`: look for the receipt before running (see below).
 */
export async function runOnce(
  store: Pick<Store, 'getReceipt'>,
  idem: Idempotency,
  run: () => Promise<Task>,
  answer: (taskId: string) => Promise<Task>,
  precheck: boolean,
): Promise<Task> {
  const replay = (r: Receipt): Promise<Task> => {
    if (r.fingerprint !== idem.fingerprint) {
      throw new HubError('IDEMPOTENCY_KEY_REUSED', `The key '${idem.key}' was already used for a different request`, {
        fields: [
          {
            field: idem.scope.startsWith('message:') ? 'message.messageId' : 'Idempotency-Key',
            description: 'already used for a different request',
          },
        ],
        hint: 'Use a new messageId (or Idempotency-Key) for a new request',
      });
    }
    return answer((r.result as { taskId: string }).taskId);
  };
  // An opening write carries its receipt, so a retry shows up as a receipt conflict; a change
  // must look first, because its kind could refuse the retry before the receipt is reached.
  if (precheck) {
    const earlier = await store.getReceipt(idem.scope, idem.key);
    if (earlier) return replay(earlier);
  }
  try {
    return await run();
  } catch (e) {
    // A retry that raced the first request (through another node, say) may be refused by the
    // kind for what the first one did; once the first's receipt is there, the retry gets its answer.
    const earlier = await store.getReceipt(idem.scope, idem.key);
    if (earlier) return replay(earlier);
    throw e;
  }
}
