import { readFile } from 'node:fs/promises';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';

const SW = new URL('../../web/public/sw.js', import.meta.url);
const ORIGIN = 'https://hitl.example.com';

type Strategy = (request: { url: string; method: string; mode?: string }, origin: string) => string;

/** The worker's routing rule, taken from the real file (it runs in a sandbox with its own `self`). */
async function loadStrategy(): Promise<{ strategyFor: Strategy; events: string[] }> {
  const events: string[] = [];
  const sandbox: Record<string, unknown> = {
    URL,
    self: { addEventListener: (type: string) => events.push(type), location: { origin: ORIGIN } },
  };
  runInNewContext(await readFile(SW, 'utf8'), sandbox, { filename: 'sw.js' });
  return { strategyFor: sandbox.strategyFor as Strategy, events };
}

describe('the service worker (web/public/sw.js)', () => {
  it('never handles API, MCP, Socket.IO or health traffic, whatever the method', async () => {
    const { strategyFor } = await loadStrategy();
    const live = [
      '/api/inquiries?status=pending',
      '/api/inquiries/01J/answer',
      '/api',
      '/mcp',
      '/mcp?description=x',
      '/socket.io/?EIO=4&transport=polling',
      '/healthz',
      '/readyz',
      '/metrics',
    ];
    for (const path of live) {
      for (const method of ['GET', 'POST']) {
        expect(strategyFor({ url: `${ORIGIN}${path}`, method }, ORIGIN), `${method} ${path}`).toBe('network');
      }
      expect(strategyFor({ url: `${ORIGIN}${path}`, method: 'GET', mode: 'navigate' }, ORIGIN)).toBe(
        'network',
      );
    }
  });

  it('serves the page network-first (a device link too), hashed files cache-first, shell files with a fallback', async () => {
    const { strategyFor } = await loadStrategy();
    const get = (path: string, mode = 'cors') =>
      strategyFor({ url: `${ORIGIN}${path}`, method: 'GET', mode }, ORIGIN);
    expect(get('/', 'navigate')).toBe('page');
    expect(get('/?token=abc.def.ghi', 'navigate')).toBe('page');
    expect(get('/assets/index-DKamA5HE.js')).toBe('asset');
    expect(get('/manifest.webmanifest')).toBe('shell');
    expect(get('/icons/icon-192.png')).toBe('shell');
    expect(get('/icons/icon-192.png?v=2')).toBe('network');
    expect(get('/somewhere-else', 'navigate')).toBe('network');
    expect(strategyFor({ url: 'https://cdn.example.net/assets/x.js', method: 'GET' }, ORIGIN)).toBe(
      'network',
    );
    expect(strategyFor({ url: `${ORIGIN}/assets/x.js`, method: 'HEAD' }, ORIGIN)).toBe('network');
  });

  it('installs, activates, routes fetches and handles notification taps', async () => {
    const { events } = await loadStrategy();
    expect(events.sort()).toEqual(['activate', 'fetch', 'install', 'notificationclick']);
  });
});
