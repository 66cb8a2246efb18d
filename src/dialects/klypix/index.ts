/**
 * The KLYPIX dialect at /klypix/ (docs/dialects.md): a client written for KLYPIX's A2A face (0.3
 * JSON-RPC, its skill ids and argument names) works against the hub's memory boards with only its
 * base URL and token changed. Every call runs at the memory kind's base, through the same
 * operations, view and quotas as /memory/; a canvas is a board.
 */
import type { Dialect } from '../dialect.js';
import { MEMORY } from '../../kinds/memory/memory.js';
import { klypixRoutes } from './routes.js';

export const klypix: Dialect = {
  seed: 'KLYPIX',
  prefix: '/klypix',
  // Only where the memory kind runs (a hub handed other kinds has no boards to speak of).
  routes: (scope, hub, options) => {
    if (hub.kinds.bases.some((b) => b.name === MEMORY)) klypixRoutes(scope, hub, options);
  },
};
