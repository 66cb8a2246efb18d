/** The direct kind's settings, entries of the hub's one settings table (config/settings.ts), declared by its module. */
import type { Declared, SettledOf } from '../../config/declared.js';
import { wholeNumber } from '../../config/values.js';

export const DIRECT_SETTINGS = {
  blockingWaitS: {
    arg: '<seconds>',
    allowed: 'a whole number from 0 to 300',
    parse: wholeNumber(0, 300),
    fallback: '30',
    help: 'seconds a blocking SendMessage to an agent waits for its answer, whoever the agent is; then it answers the task as it stands (metadata.muster.wait); 0: never waits',
  },
} satisfies Record<string, Declared<any>>; // any: each entry's own value type is checked against its parse

/** What the direct kind takes of its settings. */
export interface DirectSettings {
  /** How long a blocking SendMessage to an agent waits (MUSTER_BLOCKING_WAIT_S). */
  blockingWaitMs: number;
}

export const directSettingsFrom = (s: SettledOf<typeof DIRECT_SETTINGS>): DirectSettings => ({
  blockingWaitMs: s.blockingWaitS.value! * 1000,
});
