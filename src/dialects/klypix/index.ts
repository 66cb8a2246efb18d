/** The KLYPIX dialect at /klypix/ (docs/dialects.md). */
import type { Dialect } from '../dialect.js';

export const klypix: Dialect = {
  seed: 'KLYPIX',
  prefix: '/klypix',
  routes: () => {},
};
