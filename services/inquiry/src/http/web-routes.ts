import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { type Context, Hono } from 'hono';

const PLACEHOLDER = `<!doctype html><meta charset="utf-8"><title>HITL inquiry service</title>
<h1>HITL inquiry service</h1><p>The web app is not built. Run <code>npm run build</code>, then reload.</p>`;

/**
 * The page shows text written by agents: even if something slipped past the sanitiser, no
 * inline script runs, nothing loads from elsewhere, and the page cannot be framed.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The app page: strict CSP, no referrer (the first URL carries a token), never cached. */
function pageHeaders(c: Context): void {
  c.header('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  c.header('Referrer-Policy', 'no-referrer');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('Cache-Control', 'no-store');
}

/** `GET /` (and `/ops/inquiries/<id>`, `/pair`, `/i/<inquiryId>`): the built web app (device terminal and ops console), or a note that it is not built. */
export function webRoutes(webRoot: string | undefined): Hono {
  const app = new Hono();
  const index = webRoot ? join(webRoot, 'index.html') : undefined;
  if (!webRoot || !index || !existsSync(index)) {
    app.get('/', (c) => c.html(PLACEHOLDER));
    return app;
  }
  app.use('/assets/*', async (c, next) => {
    await next();
    // Built asset names carry a content hash.
    if (c.res.ok) c.header('Cache-Control', 'public, max-age=31536000, immutable');
    c.header('X-Content-Type-Options', 'nosniff');
  });
  app.use('/assets/*', serveStatic({ root: relative(process.cwd(), webRoot) }));
  // PWA files (docs/DEVICES.md): the service worker must be served from the root to control the page;
  // it and the manifest are revalidated on every load, so a new build reaches installed apps.
  for (const path of ['/sw.js', '/manifest.webmanifest', '/icons/*']) {
    app.use(path, async (c, next) => {
      await next();
      if (c.res.ok) c.header('Cache-Control', path === '/icons/*' ? 'public, max-age=86400' : 'no-cache');
      c.header('X-Content-Type-Options', 'nosniff');
    });
    app.use(path, serveStatic({ root: relative(process.cwd(), webRoot) }));
  }
  const servePage = async (c: Context) => {
    pageHeaders(c);
    return c.html(await readFile(index, 'utf8'));
  };
  app.get('/', servePage);
  // The ops console's own addresses: a deep link opened directly gets the same app.
  app.get('/ops', servePage);
  app.get('/ops/inquiries/:id', servePage);
  // Where a pairing QR code points: the code travels in the fragment, never to the server.
  app.get('/pair', servePage);
  // One inquiry's page (`/i/<inquiryId>`): where a chat sends a person to decide outside the chat.
  app.get('/i/:id', servePage);
  return app;
}
