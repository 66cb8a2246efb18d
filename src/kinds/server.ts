/**
 * The ways of working the hub runs: each kind's module, from its own wing (src/kinds/<kind>/).
 * The composition root hands this list to the hub, the store's migrations and the settings table;
 * nothing else names a kind. A new kind adds its module here and its client half in client.ts.
 */
import type { KindModule } from '../hub/kind.js';
import { callModule } from './call/call.js';
import { directModule } from './direct/direct.js';
import { intentModule } from './intent/intent.js';
import { memoryModule } from './memory/memory.js';
import { reviewModule } from './review/review.js';

export const KIND_MODULES: readonly KindModule[] = [directModule, reviewModule, callModule, intentModule, memoryModule];
