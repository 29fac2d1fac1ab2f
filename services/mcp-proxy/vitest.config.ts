import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real servers, child processes and timers: two files at a time on a 2-core machine.
    maxWorkers: 2,
  },
});
