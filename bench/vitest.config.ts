import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 300_000,
    // The smoke spawns its own nodes and load processes; one file at a time.
    maxWorkers: 1,
  },
});
