import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster } from '../src/testing/index.js';
import { findOnPath, freePort, launch } from '../src/testing/redis-server.js';

/** A port someone else holds, as when another test process binds it between our check and our start. */
async function occupiedPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no address');
  return { port: address.port, server };
}

// The test servers themselves: a start that loses its port race says why, and is tried again.
describe.skipIf(process.env.REDIS_URL)('test Redis servers', () => {
  let taken: { port: number; server: Server };
  beforeAll(async () => {
    taken = await occupiedPort();
  });
  afterAll(() => {
    taken?.server.close();
  });

  it('a redis-server that cannot bind its port fails with what it printed', async () => {
    const binary = findOnPath('redis-server') as string;
    const args = ['--port', String(taken.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
    await expect(launch(binary, args, taken.port)).rejects.toThrow(/Address already in use/i);
  });

  it('a cluster whose first ports were taken meanwhile starts on fresh ones', async () => {
    let picks = 0;
    // The first attempt gets one port that is already bound; every later pick is really free.
    const pickPort = async () => (picks++ === 0 ? taken.port : freePort());
    const cluster = await startRedisCluster({ pickPort });
    try {
      expect(picks).toBeGreaterThan(6);
      expect(cluster.nodes.map((node) => node.port)).not.toContain(taken.port);
    } finally {
      await cluster.stop();
    }
  }, 60_000);
});
