import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [react()],
  test: {
    include: ['test/**/*.test.{ts,tsx}'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One headless Chromium at a time on a 2-core machine keeps the timing assertions honest.
    maxWorkers: 1,
    // Files share their worker's module cache (no fresh import per file: that was a fifth of the
    // suite's CPU); each file starts its own nodes, ports and users, so no state is shared.
    isolate: false,
    // A poll waits on an event, not on speed: a loaded machine must not turn a late event into a failure.
    expect: { poll: { timeout: 15_000 } },
  },
});
