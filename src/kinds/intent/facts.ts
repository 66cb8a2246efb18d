/** What an intent keeps about itself in `metadata.muster`, how it shows its worker there, and the sentences its status says. */
import { randomUUID } from 'node:crypto';
import type { Message } from '../../a2a/types.js';
import type { StoredTask, TaskRecord } from '../../store/store.js';
import { isoTime } from '../../wire/iso-time.js';

/** The kind's name, on its tasks and in scopes that read them. */
export const INTENT = 'intent';

export interface IntentFacts {
  space: string;
  title: string;
  why?: string;
  footprint: string[];
  acceptance?: string[];
  priority: number;
}

export const factsOf = (task: StoredTask): IntentFacts => task.record.metadata?.['muster'] as unknown as IntentFacts;

/** A status message: one plain sentence from the space. */
export const said = (text: string): Message => ({ messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text }] });

/** When the worker's lease runs (or ran) out, ISO 8601. */
export const leaseEnd = (record: TaskRecord): string | undefined =>
  record.heldUntil === undefined ? undefined : isoTime(record.heldUntil);

/**
 * The task's hold as `metadata.muster` shows it (the kind's describeHold): the worker that holds
 * the intent or landed it, and while the intent is worked, `leaseUntil`, when the lease runs out.
 */
export function holdFacts(record: TaskRecord): { worker?: string; leaseUntil?: string } {
  if (record.holder === undefined) return {};
  const worked = record.state === 'TASK_STATE_WORKING' || record.state === 'TASK_STATE_INPUT_REQUIRED';
  const until = leaseEnd(record);
  return worked && until !== undefined ? { worker: record.holder, leaseUntil: until } : { worker: record.holder };
}
