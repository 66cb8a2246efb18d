/** The direct kind's settings, entries of the hub's one settings table (config/settings.ts). */
import type { Declared } from '../../config/settings.js';
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
