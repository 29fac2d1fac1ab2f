import { readFile } from 'node:fs/promises';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { strategyFor } from '../../src/sw/shell-routes';

/** The built worker (`npm run build -w web`), as the node serves it at /sw.js. */
const SW = new URL('../../dist/sw.js', import.meta.url);
const ORIGIN = 'https://hitl.example.com';

/** The events the built worker listens to: it runs in a sandbox with its own `self`. */
async function listenedEvents(): Promise<string[]> {
  const events: string[] = [];
  const sandbox: Record<string, unknown> = {
    URL,
    self: { addEventListener: (type: string) => events.push(type), location: { origin: ORIGIN } },
  };
  runInNewContext(await readFile(SW, 'utf8'), sandbox, { filename: 'sw.js' });
  return events;
}

describe('the service worker (web/src/sw/worker)', () => {
  it('never handles API, MCP, Socket.IO or health traffic, whatever the method', () => {
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

  it('serves the page network-first (a device link too), hashed files cache-first, shell files with a fallback', () => {
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

  it('the built /sw.js is one classic script: installs, activates, routes fetches, takes pushes and taps', async () => {
    const events = await listenedEvents();
    expect(events.sort()).toEqual([
      'activate',
      'fetch',
      'install',
      'notificationclick',
      'push',
      'pushsubscriptionchange',
    ]);
  });
});
