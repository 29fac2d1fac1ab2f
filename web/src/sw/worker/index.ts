/*
 * The HITL service worker (built to /sw.js by vite.sw.config.ts): the offline shell (shell-cache.ts)
 * and Web Push notifications that can be answered without opening the page (push-events.ts).
 */
import { installPush } from './push-events';
import { installShell } from './shell-cache';

const sw = self as unknown as ServiceWorkerGlobalScope;
installShell(sw);
installPush(sw);
