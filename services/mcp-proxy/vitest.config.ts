import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real servers, child processes and timers: two files at a time on a 2-core machine.
    maxWorkers: 2,
    // Files share their worker's module cache (no fresh import of the package per file); each file
    // makes its own stores, servers and users, so sharing modules shares no state between them.
    isolate: false,
  },
});
