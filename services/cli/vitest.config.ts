import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/first-contact/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real servers and timers: two files at a time on a 2-core machine keeps timing honest.
    maxWorkers: 2,
    // Files share their worker's module cache (no fresh import per file: that was a fifth of the
    // suite's CPU); each file starts its own nodes, ports and users, so no state is shared.
    isolate: false,
  },
});
