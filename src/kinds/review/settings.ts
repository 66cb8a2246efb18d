/** The review kind's settings, entries of the hub's one settings table (config/settings.ts). */
import type { Declared } from '../../config/settings.js';
import { hostNames, wholeNumber } from '../../config/values.js';
import { DEFAULT_REVIEW_SETTINGS as review } from './request.js';

export const REVIEW_SETTINGS = {
  reviewMinDeadlineS: {
    arg: '<seconds>',
    allowed: 'a whole number of at least 1',
    parse: wholeNumber(1),
    fallback: String(review.minDeadlineS),
    help: 'shortest review deadline, in seconds from posting',
  },
  reviewMaxDeadlineS: {
    arg: '<seconds>',
    allowed: 'a whole number of at least 1',
    parse: wholeNumber(1),
    fallback: String(review.maxDeadlineS),
    help: 'longest review deadline, in seconds from posting',
  },
  reviewSourceHosts: {
    arg: '<host,…>',
    allowed: 'a comma list of host names, such as github.com,nodejs.org',
    parse: hostNames,
    fallback: review.sourceHosts.join(','),
    help: 'hosts a review source may be on',
    show: (h: string[]) => h.join(','),
  },
} satisfies Record<string, Declared<any>>; // any: each entry's own value type is checked against its parse
