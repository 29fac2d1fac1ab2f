import { defineConfig } from 'vitest/config';

// A newcomer's first hour: a fresh clone, and every shell block of the docs. They build, install and
// bind port 8787 (in a private network namespace when the machine allows one), so they run after the
// other tests and one file at a time.
export default defineConfig({
  test: {
    include: ['test/first-contact/**/*.test.ts'],
    testTimeout: 900_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
});
