import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real nodes and timers on a shared 2-core machine: two files at a time keeps timing honest.
    maxWorkers: 2,
  },
});
