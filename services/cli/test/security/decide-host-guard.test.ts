import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SECRET } from '../node-process.js';

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));

/** A raw POST (fetch cannot set Host), resolving with the status code. */
function rawPost(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/decide`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

/** Finding 10: `hitl decide` applies the node's Host / Origin guard. */
describe('security: hitl decide refuses foreign Host and Origin', () => {
  let child: ChildProcess;
  let url = '';
  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, 'decide'], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', HITL_SECRET: SECRET, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const match = seen.match(/decision agent at (http:\/\/\S+)/);
        if (match?.[1]) resolve(match[1]);
      });
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
      });
      child.once('exit', (code) => reject(new Error(`decide exited ${code}: ${seen}`)));
    });
  });
  afterAll(() => {
    child?.kill('SIGKILL');
  });

  it('403 for a rebinding Host, before the token is looked at', async () => {
    expect(await rawPost(url, { host: 'evil.example:80' })).toBe(403);
  });

  it('403 for a foreign Origin', async () => {
    const host = new URL(url).host;
    expect(await rawPost(url, { host, origin: 'https://evil.example' })).toBe(403);
  });

  it('loopback Host and Origin pass the guard (then 401 without a token)', async () => {
    const host = new URL(url).host;
    expect(await rawPost(url, { host, origin: `http://localhost:5173` })).toBe(401);
  });
});
