import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';

const PLACEHOLDER = `<!doctype html><meta charset="utf-8"><title>HITL inquiry service</title>
<h1>HITL inquiry service</h1><p>The web app is not built. Run <code>npm run build</code>, then reload.</p>`;

/** `GET /`: the built web app (device terminal and ops console), or a note that it is not built. */
export function webRoutes(webRoot: string | undefined): Hono {
  const app = new Hono();
  const index = webRoot ? join(webRoot, 'index.html') : undefined;
  if (!webRoot || !index || !existsSync(index)) {
    app.get('/', (c) => c.html(PLACEHOLDER));
    return app;
  }
  app.use('/assets/*', serveStatic({ root: relative(process.cwd(), webRoot) }));
  app.get('/', async (c) => c.html(await readFile(index, 'utf8')));
  return app;
}
