/** What an intent keeps about itself in `metadata.muster`, and the sentences its status says. */
import { randomUUID } from 'node:crypto';
import type { Message } from '../../../a2a/types.js';
import type { StoredTask } from '../../../store/store.js';

export interface IntentFacts {
  space: string;
  title: string;
  why?: string;
  footprint: string[];
  acceptance?: string[];
  priority: number;
  /** The agent holding the intent's lease, while one does. */
  worker?: string;
  /** When that lease runs out (ISO 8601). */
  leaseUntil?: string;
}

export const factsOf = (task: StoredTask): IntentFacts => task.record.metadata?.['muster'] as unknown as IntentFacts;

/** A status message: one plain sentence from the space. */
export const said = (text: string): Message => ({ messageId: randomUUID(), role: 'ROLE_AGENT', parts: [{ text }] });

/** The holder of a live lease at `now`, if any. */
export function liveHolder(facts: IntentFacts, now: number): string | undefined {
  return facts.worker !== undefined && facts.leaseUntil !== undefined && Date.parse(facts.leaseUntil) > now ? facts.worker : undefined;
}
