/** The intent kind's settings, entries of the hub's one settings table (config/settings.ts), declared by its module. */
import type { Declared, SettledOf } from '../../config/declared.js';
import { wholeNumber } from '../../config/values.js';

export const INTENT_SETTINGS = {
  intentWaitS: {
    arg: '<seconds>',
    allowed: 'a whole number from 0 to 300',
    parse: wholeNumber(0, 300),
    fallback: '20',
    help: 'seconds a blocking declaration waits for its intent to land or need input',
  },
} satisfies Record<string, Declared<any>>; // any: each entry's own value type is checked against its parse

/** What the intent kind takes of its settings. */
export interface IntentSettings {
  /** How long a blocking declaration waits for its intent to end (MUSTER_INTENT_WAIT_S). */
  intentWaitMs: number;
}

export const intentSettingsFrom = (s: SettledOf<typeof INTENT_SETTINGS>): IntentSettings => ({
  intentWaitMs: s.intentWaitS.value! * 1000,
});
