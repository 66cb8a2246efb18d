import { defineConfig } from 'vitest/config';

// Each test file starts its own hub(s) on free ports, with its own SQLite folder or PostgreSQL
// database, so files share nothing and may run side by side (two at a time: a 2-core machine).
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    minWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['verbose'],
  },
});
