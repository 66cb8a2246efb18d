/**
 * The FireTrident dialect at /api/colonies/{space}/ (docs/dialects.md): a colony is a Muster
 * space, its intents the space's work intents, declared and followed over the colony's own A2A
 * endpoint and REST routes.
 */
import type { Dialect } from '../dialect.js';
import { colonyRoutes } from './routes.js';

export const firetrident: Dialect = {
  seed: 'FireTrident',
  prefix: '/api/colonies/:space',
  routes: colonyRoutes,
};
