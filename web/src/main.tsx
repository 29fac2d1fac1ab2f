import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { registerServiceWorker } from './platform/service-worker';
import { adoptUrlParams } from './session';
import './styles.css';

adoptUrlParams(window.location, window.history, window.localStorage);
registerServiceWorker();

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
