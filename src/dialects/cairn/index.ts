/** The Cairn dialect at /cairn/ (docs/dialects.md). */
import type { Dialect } from '../dialect.js';

export const cairn: Dialect = {
  seed: 'Cairn',
  prefix: '/cairn',
  routes: () => {},
};
