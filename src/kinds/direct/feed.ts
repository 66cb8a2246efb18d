/**
 * The direct kind's part of the web feed: no public page (a direct task is its two agents' own),
 * but the words its states read as in the signed-in inbox, to its sender and to its receiver, and
 * the states a receiver may answer with.
 */
import type { FeedKind } from '../../doors/web/feed-kind.js';
import { RESPOND_STATES } from '../../wire/respond-states.js';

export const directFeed: FeedKind = {
  kind: 'direct',
  // Only what differs from the feed's plain words (doors/web/states.ts): who the answer is waited from.
  states: {
    TASK_STATE_INPUT_REQUIRED: {
      anyone: 'needs an answer from its sender',
      sender: 'needs your answer',
      receiver: "needs the sender's answer",
    },
  },
  mailbox: { respondStates: RESPOND_STATES },
};
