import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ledgerProxyArgs, type NodeProcess, SECRET, spawnNode, token } from './node-process.js';

// Issue 35: `npx hitl proxy` stopped through its `npx` parent left the proxy serving as an orphan.
// Each long-running command is started through a parent process (as `npx` does); the parent is killed
// and the command must exit by itself.

const BIN = fileURLToPath(new URL('../bin/hitl.js', import.meta.url));

/** A parent that starts `hitl <args>` with its own stdio (so we read the child's output) and stays. */
const PARENT = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, JSON.parse(process.argv[1]), { stdio: ['pipe', 'inherit', 'inherit'] });
process.stdout.write('child pid ' + child.pid + '\\n');
setInterval(() => {}, 1 << 30);
`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Started {
  parent: ChildProcess;
  childPid: number;
}

/** Starts `hitl <args>` under a parent and resolves once the command printed `ready`. */
function startUnderParent(args: string[], env: Record<string, string>, ready: RegExp): Promise<Started> {
  const parent = spawn(process.execPath, ['-e', PARENT, JSON.stringify([BIN, ...args])], {
    env: { PATH: process.env.PATH ?? '', HITL_SECRET: SECRET, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`not ready: ${seen}`)), 60_000);
    const read = (chunk: Buffer) => {
      seen += chunk.toString();
      const pid = /child pid (\d+)/.exec(seen)?.[1];
      if (pid && ready.test(seen)) {
        clearTimeout(timer);
        resolve({ parent, childPid: Number(pid) });
      }
    };
    parent.stdout?.on('data', read);
    parent.stderr?.on('data', read);
  });
}

describe('long-running commands exit when their parent goes', { timeout: 120_000 }, () => {
  const dirs: string[] = [];
  const pids: number[] = [];
  let node: NodeProcess;
  let deviceToken = '';
  const stateDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'hitl-orphan-'));
    dirs.push(dir);
    return dir;
  };
  beforeAll(async () => {
    node = await spawnNode({});
    deviceToken = await token('orphan', 'device');
  }, 60_000);
  afterAll(async () => {
    for (const pid of pids) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await node?.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const cases: { name: string; args: () => string[]; env: () => Record<string, string>; ready: RegExp }[] = [
    {
      name: 'serve',
      args: () => ['serve'],
      env: () => ({ HITL_STATE_DIR: stateDir() }),
      ready: /node listening/,
    },
    { name: 'decide', args: () => ['decide'], env: () => ({}), ready: /decision agent at/ },
    {
      name: 'proxy',
      args: () => ['proxy', ...ledgerProxyArgs(node.url)],
      env: () => ({ HITL_STATE_DIR: stateDir(), LEDGER_FILE: join(stateDir(), 'ledger') }),
      ready: /proxy listening/,
    },
    {
      name: 'answer',
      args: () => ['answer', '--url', node.url],
      env: () => ({ HITL_DEVICE_TOKEN: deviceToken }),
      ready: /No questions waiting/,
    },
  ];

  for (const { name, args, env, ready } of cases) {
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      it(`hitl ${name}: its parent killed with ${signal}, it exits`, async () => {
        const { parent, childPid } = await startUnderParent(args(), env(), ready);
        pids.push(childPid);
        parent.kill(signal);
        await vi.waitFor(() => expect(alive(childPid)).toBe(false), { timeout: 60_000, interval: 100 });
      });
    }
  }
});
