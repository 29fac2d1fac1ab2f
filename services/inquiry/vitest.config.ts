import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real servers and timers: two files at a time on a 2-core machine keeps timing honest.
    maxWorkers: 2,
    // Files share their worker's module cache: every file imports the whole service, and importing it
    // afresh per file was most of the suite's CPU (import 70 s of 106 s wall; 19 s CPU without).
    // Files start their own nodes, ports, users and state folders, so sharing modules shares no state.
    isolate: false,
  },
});
