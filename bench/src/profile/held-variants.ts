/**
 * `node bench/dist/profile/held-variants.js [calls]`
 * Heap and RSS per held call for four ways of holding a suspended tools/call (see
 * load/variant-server.ts), each in its own process, measured after a forced GC at idle (after a
 * warm-up) and with `calls` held. Prints one line per variant.
 */
import { startWorker } from '../env/workers.js';
import type { Variant } from '../load/variant-server.js';
import { isMain } from './main.js';

const VARIANTS: Variant[] = ['hono', 'sdk', 'sdk-shared-validator', 'sdk-progress', 'sse-lean'];
const KB = 1024;

async function hold(url: string, count: number, offset: number): Promise<void> {
  const body = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'send_inquiry', arguments: { question: `q${id}` }, _meta: { progressToken: id } },
    });
  for (let i = 0; i < count; i++) {
    fetch(`${url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: body(offset + i),
    })
      .then((r) => r.text())
      .catch(() => undefined);
    if (i % 200 === 199) await new Promise((r) => setTimeout(r, 50));
  }
}

async function measureVariant(variant: Variant, calls: number): Promise<string> {
  const server = startWorker<object>('variant-server', { variant }, { execArgv: ['--expose-gc'] });
  try {
    const { url } = await server.next<{ url: string }>('listening');
    const memory = async () => {
      server.signal('cmd', { op: 'memory' });
      return server.next<NodeJS.MemoryUsage & { held: number; cpuMs: number }>('reply');
    };
    const waitHeld = async (n: number) => {
      let last = 0;
      for (let i = 0; i < 1500; i++) {
        last = (await memory()).held;
        if (last >= n) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`${variant}: only ${last} of ${n} calls held after 5 minutes`);
    };
    await hold(url, 200, 0);
    await waitHeld(200);
    await fetch(`${url}/release`, { method: 'POST' });
    await new Promise((r) => setTimeout(r, 1000));
    const idle = await memory();
    await hold(url, calls, 1000);
    await waitHeld(calls);
    await new Promise((r) => setTimeout(r, 1000));
    const parked = await memory();
    await fetch(`${url}/release`, { method: 'POST' });
    server.signal('cmd', { op: 'stop' });
    const heap = (parked.heapUsed - idle.heapUsed) / calls / KB;
    const rss = (parked.rss - idle.rss) / calls / KB;
    // Includes the 1 s settle and the GCs the memory probes force: compare variants, not absolutes.
    const cpu = (parked.cpuMs - idle.cpuMs) / calls;
    return `${variant.padEnd(21)} heap ${heap.toFixed(1).padStart(6)} KB/call   rss ${rss.toFixed(1).padStart(6)} KB/call   cpu ${cpu.toFixed(2)} ms/call`;
  } finally {
    server.kill();
  }
}

if (isMain(import.meta.url)) {
  const calls = Number(process.argv[2] ?? 2000);
  process.stdout.write(`held calls per variant: ${calls} (client in this process, server in its own)\n`);
  for (const variant of VARIANTS) process.stdout.write(`${await measureVariant(variant, calls)}\n`);
  process.exit(0);
}
