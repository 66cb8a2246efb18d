/**
 * The ways of working the hub runs: each kind's module, from its own wing (src/kinds/<kind>/),
 * with its part of the web feed when it shows there. The composition root hands this list to the
 * hub, the store's migrations, the settings table and the web door; nothing else names a kind.
 * A new kind adds its line here and its client half in client.ts. The order is the order of the
 * feed's sections.
 */
import type { FeedKind } from '../doors/web/feed-kind.js';
import type { KindModule } from '../hub/kind-module.js';
import { callModule } from './call/call.js';
import { callFeed } from './call/feed.js';
import { directModule } from './direct/direct.js';
import { directFeed } from './direct/feed.js';
import { intentFeed } from './intent/feed.js';
import { intentModule } from './intent/intent.js';
import { memoryFeed } from './memory/feed.js';
import { memoryModule } from './memory/memory.js';
import { reviewFeed } from './review/feed.js';
import { reviewModule } from './review/review.js';

/** A kind's server side: the hub's contract, and its part of the web feed, if it shows there. */
export type ServerKind = KindModule & { readonly feed?: FeedKind };

export const KIND_MODULES: readonly ServerKind[] = [
  { ...directModule, feed: directFeed },
  { ...reviewModule, feed: reviewFeed },
  { ...callModule, feed: callFeed },
  { ...intentModule, feed: intentFeed },
  { ...memoryModule, feed: memoryFeed },
];
