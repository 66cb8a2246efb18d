/** The FireTrident dialect at /api/colonies/:space/ (docs/dialects.md). */
import type { Dialect } from '../dialect.js';

export const firetrident: Dialect = {
  seed: 'FireTrident',
  prefix: '/api/colonies/:space',
  routes: () => {},
};
