import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../bin/hitl.js', import.meta.url));
const run = promisify(execFile);

let stateDir: string;
beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), 'hitl-cli-'));
});
afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH ?? '',
  HITL_STATE_DIR: stateDir,
  LOG_LEVEL: 'warn',
  ...extra,
});

/** Runs the bin and returns its exit code and output, never throwing on a non-zero exit. */
async function hitl(args: string[], extra: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env: env(extra) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${pattern} in: ${seen}`)), 10_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (pattern.test(seen)) {
        clearTimeout(timer);
        resolve(seen);
      }
    });
  });
}

describe('hitl token create', () => {
  it('prints the token alone on stdout', async () => {
    const { code, stdout } = await hitl(['token', 'create', '--user', 'alice', '--role', 'device'], {
      HITL_SECRET: 'x'.repeat(40),
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    const claims = JSON.parse(Buffer.from(stdout.split('.')[1] ?? '', 'base64url').toString());
    expect(claims).toMatchObject({ sub: 'alice', role: 'device' });
  });

  it('refuses an unknown role and a bad user id, saying why', async () => {
    const role = await hitl(['token', 'create', '--user', 'alice', '--role', 'root']);
    expect(role.code).not.toBe(0);
    expect(role.stderr).toMatch(/root/);
    expect(role.stdout).toBe('');
    const user = await hitl(['token', 'create', '--user', 'a b', '--role', 'agent']);
    expect(user.code).not.toBe(0);
  });
});

describe('hitl serve', () => {
  it('refuses tiers out of order at once, naming both variables and values', async () => {
    const { code, stderr } = await hitl(['serve'], {
      HITL_DEVICE_TIMEOUT_MS: '60000',
      HITL_SERVICE_TIMEOUT_MS: '50000',
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain('HITL_DEVICE_TIMEOUT_MS=60000');
    expect(stderr).toContain('HITL_SERVICE_TIMEOUT_MS=50000');
  });

  it('refuses a bad PORT with a message naming it', async () => {
    const { code, stderr } = await hitl(['serve'], { PORT: 'eighty' });
    expect(code).not.toBe(0);
    expect(stderr).toContain('PORT');
  });

  it('first embedded start prints ready URLs and tokens that work; SIGTERM stops it cleanly', async () => {
    const child = spawn(process.execPath, [BIN, 'serve'], { env: env({ PORT: '0' }), stdio: 'pipe' });
    try {
      const banner = await waitForOutput(child, /device URL:\s+\S+/);
      const mcpUrl = banner.match(/MCP endpoint:\s+(\S+)/)?.[1] ?? '';
      const agentToken = banner.match(/agent token:\s+(\S+)/)?.[1] ?? '';
      const deviceUrl = banner.match(/device URL:\s+(\S+)/)?.[1] ?? '';
      expect(deviceUrl).toMatch(/\/\?token=[\w-]+\.[\w-]+\.[\w-]+$/);
      expect((await fetch(new URL('/healthz', mcpUrl))).status).toBe(200);

      const list = await fetch(mcpUrl, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${agentToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
      expect(list.status).toBe(200);
      expect(await list.text()).toContain('send_inquiry');

      // A token minted later by the CLI uses the same secret from the state folder.
      const minted = await hitl(['token', 'create', '--user', 'demo', '--role', 'device']);
      const api = await fetch(new URL('/api/inquiries', mcpUrl), {
        headers: { authorization: `Bearer ${minted.stdout.trim()}` },
      });
      expect(api.status).toBe(200);

      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
