import { App } from '@modelcontextprotocol/ext-apps';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { CardApp } from './card-app';
import { cardFeed } from './card-feed';
import { submitFormsInSandbox } from './sandboxed-forms';
import '../styles.css';

// The inquiry card (MCP Apps): one self-contained HTML file (vite.card.config.ts) a host renders in
// a sandboxed frame; it talks to the host over postMessage (ext-apps' App) and loads nothing else.
const app = new App({ name: 'HITL inquiry card', version: '1.0.0' }, {}, { autoResize: true });
const feed = cardFeed(app);
submitFormsInSandbox(document);
const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <CardApp app={app} feed={feed} />
    </StrictMode>,
  );
}
void app.connect();
