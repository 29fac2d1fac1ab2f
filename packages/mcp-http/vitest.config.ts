import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Files share their worker's module cache (no fresh import of the package per file); each file
    // makes its own stores, servers and users, so sharing modules shares no state between them.
    isolate: false,
  },
});
