import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The service worker, built on its own into dist/sw.js: one classic script (IIFE), because a worker
 * registered without `type: "module"` cannot import, and the name stays `/sw.js` so installed apps
 * keep the same worker across builds. Runs after the page build (`emptyOutDir: false`).
 */
export default defineConfig({
  publicDir: false,
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    lib: {
      entry: fileURLToPath(new URL('src/sw/worker/index.ts', import.meta.url)),
      formats: ['iife'],
      name: 'hitlServiceWorker',
      fileName: () => 'sw.js',
    },
  },
});
