import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

/**
 * The inquiry card (MCP Apps): one self-contained HTML document, every script and style inlined, so
 * it loads nothing from elsewhere inside the host's sandboxed frame. Built into dist/ beside the web
 * app, where the node reads it for `resources/read` of `ui://hitl/inquiry-card`.
 */
export default defineConfig({
  plugins: [react(), viteSingleFile()],
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    rollupOptions: { input: 'inquiry-card.html' },
  },
});
