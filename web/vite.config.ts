import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Where `npm run dev` forwards the API and Socket.IO (a node started with `hitl serve`). */
const NODE = process.env.HITL_DEV_NODE ?? 'http://127.0.0.1:8787';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // No inline assets: the page is served with a strict Content-Security-Policy.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 700,
  },
  server: {
    proxy: {
      '/api': NODE,
      '/socket.io': { target: NODE, ws: true },
    },
  },
});
