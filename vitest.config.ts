import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Each file makes its own hubs on free ports, its own SQLite files and PostgreSQL database, so
    // files may run side by side. Vitest's default (a core less than the machine has) runs them one
    // at a time on two cores, while most of a file's time is spent waiting on its hub, a child
    // process or PostgreSQL.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    minWorkers: 1,
  },
});
