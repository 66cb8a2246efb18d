/**
 * The review kind's settings, entries of the hub's one settings table (config/settings.ts),
 * declared by its module; and the rules a review request is checked with, made of them both at
 * the hub and by `muster review preview` (which settles them from the environment alone).
 */
import { ConfigError, described, type Declared, type SettledOf } from '../../config/declared.js';
import { settleEntries } from '../../config/settle.js';
import { hostNames, wholeNumber } from '../../config/values.js';
import { DEFAULT_REVIEW_SETTINGS as review, type ReviewSettings } from './request.js';

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

/** The rules from the settings: the longest deadline may not be shorter than the shortest. */
export function reviewFrom(s: SettledOf<typeof REVIEW_SETTINGS>): ReviewSettings {
  const min = s.reviewMinDeadlineS.value!;
  const max = s.reviewMaxDeadlineS.value!;
  if (max < min)
    throw new ConfigError(
      `${described(s.reviewMaxDeadlineS)} must not be less than ${described(s.reviewMinDeadlineS)}`,
    );
  return { minDeadlineS: min, maxDeadlineS: max, sourceHosts: s.reviewSourceHosts.value! };
}

/** The review rules from the environment (and MUSTER_CONFIG's file); `muster review preview` checks requests with them. */
export const reviewSettings = (env: NodeJS.ProcessEnv): ReviewSettings =>
  reviewFrom(settleEntries(REVIEW_SETTINGS, env));
