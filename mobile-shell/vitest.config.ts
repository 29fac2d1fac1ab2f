import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real nodes and a real CLI: one file at a time on a 2-core machine keeps timing honest.
    maxWorkers: 1,
  },
});
