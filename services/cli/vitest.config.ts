import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/first-contact/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Real servers and timers: two files at a time on a 2-core machine keeps timing honest.
    maxWorkers: 2,
  },
});
