import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBanner, storeLabel } from '../src/commands/banner.js';
import { SECRET } from './node-process.js';

const BIN = fileURLToPath(new URL('../bin/hitl.js', import.meta.url));
const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;

/** Starts `hitl serve` and resolves with everything it printed up to the end of its banner. */
function bannerOf(env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no banner in: ${seen}`));
    }, 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (!/npx hitl token create[^\n]*\n/.test(seen)) return;
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve(seen);
    });
  });
}

describe('the start banner', () => {
  let redis: TestRedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('distributed mode prints the URLs and how to make tokens, and no token', async () => {
    const out = await bannerOf({ REDIS_URL: redis.url, HITL_SECRET: SECRET });
    const url = out.match(/"url":"(http:\/\/[^"]+)"/)?.[1] ?? 'no url logged';
    expect(out).toContain(`HITL inquiry service (Redis at ${new URL(redis.url).host}) at ${url}`);
    expect(out).toContain(`  MCP endpoint:  ${url}/mcp`);
    expect(out).toContain(`  device URL:    ${url}/?token=<device token>`);
    expect(out).toContain('npx hitl token create --user U --role agent|device|ops');
    expect(out).not.toMatch(JWT);
    expect(out).not.toContain(SECRET);
  });

  it('names a Redis without the password its URL carries, and a cluster by its seeds', () => {
    expect(storeLabel({ redisUrl: 'redis://:hunter2@cache.internal:6380/0' })).toBe(
      'Redis at cache.internal:6380',
    );
    expect(
      storeLabel({
        redisClusterNodes: [
          { host: '10.0.0.1', port: 7000 },
          { host: '10.0.0.2', port: 7001 },
        ],
      }),
    ).toBe('Redis Cluster at 10.0.0.1:7000, 10.0.0.2:7001');
    expect(storeLabel({})).toBe('embedded store');
  });

  it('an embedded node with its own secret prints ready tokens, in commands a user can type', () => {
    const text = startBanner('http://127.0.0.1:8787', 'embedded store', {
      agent: 'A',
      device: 'D',
      ops: 'O',
    });
    expect(text).toContain('  device URL:    http://127.0.0.1:8787/?token=D');
    expect(text).toContain('More tokens: npx hitl token create');
    expect(text).not.toMatch(/[^x] hitl token/);
  });
});
