/** The Vorn dialect at /v1/ (docs/dialects.md). */
import type { Dialect } from '../dialect.js';

export const vorn: Dialect = {
  seed: 'Vorn',
  prefix: '/v1',
  routes: () => {},
};
