import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Real servers and a real redis-server: two files at a time on a 2-core machine.
    maxWorkers: 2,
    // Files share their worker's module cache (no fresh import of the package per file); each file
    // makes its own stores, servers and users, so sharing modules shares no state between them.
    isolate: false,
  },
});
