import type { Context } from 'hono';

/** No script at all; the one inline style block by nonce; forms post only here; never framed. */
export function secureHeaders(c: Context, nonce: string): void {
  c.header(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'nonce-${nonce}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  );
  // The URL is the credential: it must not leak through a Referer, a cache or a search index. The page
  // loads and links nothing elsewhere; `same-origin` sends a Referer only to the node itself (which
  // holds the link anyway) and, unlike `no-referrer`, lets the browser send the form's real Origin.
  c.header('Referrer-Policy', 'same-origin');
  c.header('Cache-Control', 'no-store');
  c.header('X-Content-Type-Options', 'nosniff');
  c.header('X-Frame-Options', 'DENY');
  c.header('X-Robots-Tag', 'noindex');
}
