import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Files share their worker's module cache (no fresh import of the package per file); each file
    // makes its own stores, servers and users, so sharing modules shares no state between them.
    isolate: false,
  },
});
