import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer, TEST_AUDIT_KEY, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBanner, storeLabel } from '../src/commands/banner.js';
import { SECRET } from './node-process.js';

const BIN = fileURLToPath(new URL('../bin/hitl.js', import.meta.url));
const JWT = /eyJ[\w-]+\.[\w-]+\.[\w-]+/;

/**
 * Starts `hitl serve` and resolves with everything it printed up to the end of its banner, after
 * `whileRunning` (given the banner) is done with the running node.
 */
function bannerOf(
  env: Record<string, string>,
  whileRunning: (banner: string) => Promise<void> = async () => {},
): Promise<string> {
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
      // pino writes its line asynchronously: under load it can come after the banner.
      if (!/npx hitl token create[^\n]*\n/.test(seen) || !seen.includes('"msg":"node listening"')) return;
      clearTimeout(timer);
      const banner = seen;
      seen = '\u0000';
      void whileRunning(banner)
        .finally(() => child.kill('SIGKILL'))
        .then(() => new Promise((done) => child.once('exit', done)))
        .then(() => resolve(banner), reject);
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
    const out = await bannerOf({ REDIS_URL: redis.url, HITL_SECRET: SECRET, HITL_AUDIT_KEY: TEST_AUDIT_KEY });
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

  it('once signed in on a device, the next start offers the pairing page instead of a raw device token', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'hitl-banner-'));
    try {
      const first = await bannerOf({ HITL_STATE_DIR: stateDir }, async (banner) => {
        const deviceUrl = new URL(banner.match(/device URL:\s+(\S+)/)?.[1] ?? 'http://missing');
        // The person opens the device URL: the node records that device.
        const token = deviceUrl.searchParams.get('token') ?? '';
        const seen = await fetch(`${deviceUrl.origin}/api/devices`, {
          headers: { authorization: `Bearer ${token}` },
        });
        expect(seen.status).toBe(200);
      });
      expect(first).toMatch(/ {2}device URL: {4}http:\/\/\S+\/\?token=eyJ/);
      expect(first).toContain('add your other devices from its Devices view');

      const second = await bannerOf({ HITL_STATE_DIR: stateDir });
      const url = second.match(/at (http:\/\/\S+)\n/)?.[1] ?? 'no url';
      expect(second).toContain(`  add a device:  ${url}/pair with a code from Devices → Add a device`);
      expect(second).not.toContain('device URL:');
      expect(second).toContain('npx hitl answer --pair <code>');
      expect(second).toMatch(/ops URL: {7}http:\/\/\S+\/\?token=eyJ/);
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});
