import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { Server, type Socket } from 'socket.io';
import type { TaskContext } from '../env/worker-protocol.js';

/**
 * The bare floor, in its own process: a Hono route that holds a POST until a socket.io `release`
 * event names it, and a socket.io `ping` acked at once. No auth, no MCP, no store.
 */
export async function baselineServer(_params: Record<string, never>, ctx: TaskContext): Promise<object> {
  const held = new Map<number, (body: string) => void>();
  let control: Socket | undefined;
  const app = new Hono();
  app.post('/hold/:n', async (c) => {
    const n = Number(c.req.param('n'));
    const body = await new Promise<string>((resolve) => {
      held.set(n, resolve);
      control?.emit('held', n);
    });
    return c.json({ n, body });
  });
  const server = createAdaptorServer({ fetch: app.fetch });
  const io = new Server(server, { serveClient: false });
  io.on('connection', (socket) => {
    control = socket;
    socket.on('ping', (n: number, ack: (n: number) => void) => ack(n));
    socket.on('release', (n: number) => {
      const resolve = held.get(n);
      held.delete(n);
      resolve?.(`released ${n}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  ctx.emit('listening', { url: `http://127.0.0.1:${port}` });
  await ctx.signal('stop');
  for (const resolve of held.values()) resolve('stopped');
  await io.close();
  return {};
}
