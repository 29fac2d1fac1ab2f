import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, gauge, type NodeProcess, sleep, spawnNode, token } from '../node-process.js';
import { askQuestion, questionsSeen, watchSocket } from './socket-helpers.js';

/**
 * Finding 2: every connection got every pending inquiry in one event, with no cap on sockets per
 * token, no handshake rate limit and no bound on what waits for a socket that does not read.
 */
const PAGE_LIMIT = 256 * 1024;
const BIG = 100;

/** Resident memory of a process, from /proc (Linux). */
const rssBytes = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)?.[1] ?? 0) * 1024;

/** An inquiry of about 115 KB as a device sees it (all within the input limits). */
function askBig(url: string, user: string, n: number, signal: AbortSignal): void {
  askQuestion(url, user, `big ${n} ${'q'.repeat(8000)}`, signal, {
    context: 'c'.repeat(30_000),
    format: 'form',
    questions: Array.from({ length: 40 }, (_, i) => ({
      id: `f${i}`,
      prompt: 'p'.repeat(1900),
      kind: 'text',
    })),
  });
}

/**
 * Stops reading the socket's TCP connection once its transport is open, as a client that never reads
 * would; resolves then (it still sends its CONNECT, so the node admits it).
 */
function stopReading(socket: ReturnType<typeof watchSocket>['socket']): Promise<void> {
  return new Promise((resolve) =>
    socket.io.engine.on('open', () => {
      const transport = socket.io.engine.transport as unknown as { ws?: { _socket?: { pause(): void } } };
      transport.ws?._socket?.pause();
      resolve();
    }),
  );
}

/** How many pending inquiries `user` has on the node. */
async function pendingOf(url: string, user: string): Promise<number> {
  const r = await fetch(`${url}/api/inquiries?status=pending&limit=200`, {
    headers: { authorization: `Bearer ${await token(user, 'device')}` },
  });
  return ((await r.json()) as { items: unknown[] }).items.length;
}

describe('socket limits', () => {
  let node: NodeProcess;
  let limited: NodeProcess;
  const calls = new AbortController();
  beforeAll(async () => {
    node = await spawnNode({ HITL_MAX_SOCKETS_PER_TOKEN: '3', HITL_RATE_PER_MIN: '0' });
    limited = await spawnNode({});
  }, 60_000);
  afterAll(async () => {
    calls.abort();
    await Promise.all([node, limited].map((n) => n?.kill('SIGKILL')));
  });

  it('at most HITL_MAX_SOCKETS_PER_TOKEN live sockets per token: the oldest are dropped', async () => {
    const shared = await token('cap-user', 'device');
    const sockets: ReturnType<typeof watchSocket>[] = [];
    for (let i = 0; i < 5; i += 1) {
      const s = watchSocket(node.url, { token: shared });
      expect(await s.outcome).toEqual({ connected: true });
      sockets.push(s);
      // time itself is under test: the oldest go first, by their connection time in ms.
      await sleep(50);
    }
    await eventually(() => sockets.map((s) => s.socket.connected).join() === 'false,false,true,true,true');
    for (const s of sockets) s.socket.close();
  });

  it('sync comes in pages of at most 256 KB that together hold every pending inquiry', async () => {
    for (let n = 0; n < BIG; n += 1) askBig(node.url, 'bulk', n, calls.signal);
    const reader = watchSocket(node.url, { token: await token('bulk', 'device') });
    await eventually(async () => (await pendingOf(node.url, 'bulk')) === BIG, 20_000);
    const late = watchSocket(node.url, { token: await token('bulk', 'device') });
    expect(await late.outcome).toEqual({ connected: true });
    await eventually(() => new Set(questionsSeen(late.events)).size === BIG, 20_000);
    const syncs = late.events.filter(([name]) => name === 'inquiry:sync');
    expect(syncs.length).toBeGreaterThan(1);
    for (const [, payload] of syncs)
      expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(PAGE_LIMIT);
    reader.socket.close();
    late.socket.close();
  }, 60_000);

  it('sockets that stop reading neither grow the node nor stay connected', async () => {
    const pid = node.child.pid as number;
    const before = rssBytes(pid);
    const stalled = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        // A token each: the per-token cap must not be what ends them.
        const s = watchSocket(node.url, { token: await token('bulk', 'device', `stalled-${i}`) });
        await stopReading(s.socket);
        return s;
      }),
    );
    // Live questions keep coming for everyone of the user; a non-reader's backlog must not grow.
    // 80 × ~115 KB is more than the kernel buffers of a loopback connection take (~4 MB here).
    for (let n = BIG; n < BIG + 80; n += 1) askBig(node.url, 'bulk', n, calls.signal);
    // time itself is under test: what stays resident six seconds into the flood (its own garbage
    // collected by then), not the flood's passing peak.
    await sleep(6000);
    const grown = rssBytes(pid) - before;
    expect(grown).toBeLessThan(80 * 1024 * 1024);
    await eventually(async () => (await gauge(node.url, 'hitl_connected_devices')) < stalled.length, 60_000);
    for (const s of stalled) s.socket.close();
    // 18 s alone on this machine; over 60 s when a build shares the two cores.
  }, 120_000);

  it('handshakes are rate-limited per token and per address', async () => {
    const one = await token('rate-user', 'device');
    const refusals: unknown[] = [];
    for (let i = 0; i < 80; i += 1) {
      const s = watchSocket(limited.url, { token: one });
      const outcome = await s.outcome;
      s.socket.close();
      if (!outcome.connected) refusals.push(outcome.data);
    }
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals[0]).toMatchObject({ code: 'rate_limited', retryAfterMs: expect.any(Number) });
    // Many tokens from one address: forged ones included, each handshake counts.
    let addressRefusals = 0;
    for (let i = 0; i < 400 && addressRefusals === 0; i += 1) {
      const s = watchSocket(limited.url, { token: `forged-${i}` });
      const outcome = await s.outcome;
      s.socket.close();
      if (!outcome.connected && (outcome.data as { code?: string })?.code === 'rate_limited')
        addressRefusals += 1;
    }
    expect(addressRefusals).toBeGreaterThan(0);
  }, 60_000);
});
