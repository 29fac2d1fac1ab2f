import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, rpcPost, spawnNode } from './node-process.js';

// `npm start 2>&1 | tee log`, then Ctrl-C: the terminal signals tee too, so the node's stdout becomes a
// pipe nobody reads. The node must still stop, and a second signal must always end it at once.

let node: NodeProcess | undefined;
afterEach(async () => {
  await node?.kill('SIGKILL');
  node = undefined;
});

/** Closes our end of the node's stdout pipe (like tee gone after Ctrl-C), and resolves once it is closed. */
async function dropStdout(n: NodeProcess): Promise<void> {
  const stdout = n.child.stdout;
  if (!stdout || stdout.destroyed) return;
  const closed = once(stdout, 'close');
  stdout.destroy();
  await closed;
}

/** Holds one `send_inquiry` call open, so a draining node has something to wait for. */
async function holdACall(url: string): Promise<void> {
  const held = await rpcPost(url, 'signals', {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'send_inquiry', arguments: { question: 'Still there?' } },
  });
  expect(held.status).toBe(200);
  void held.body?.pipeTo(new WritableStream()).catch(() => undefined); // keep the call open
}

describe('hitl serve on signals', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} stops it although the reader of its stdout has gone`, async () => {
      // At once after its 'node listening' line: it handles signals from then on.
      node = await spawnNode({});
      await dropStdout(node); // the pipe's only reader is gone, like tee after Ctrl-C
      node.child.kill(signal);
      expect(await node.exited).toBe(0);
    });
  }

  for (const reader of ['reading', 'gone'] as const) {
    it(`a second signal exits at once while held calls drain (stdout reader ${reader})`, async () => {
      node = await spawnNode({ HITL_DRAIN_MS: '20000' });
      await holdACall(node.url);
      if (reader === 'gone') await dropStdout(node);
      node.child.kill('SIGTERM');
      // Draining the held call: it says so (not ready), and is still running.
      const url = node.url;
      await eventually(async () => (await fetch(`${url}/readyz`)).status === 503);
      expect(node.child.exitCode).toBeNull();
      node.child.kill('SIGINT');
      // Exit code 1 is the second signal's: the drain would end 20 s later with 0.
      expect(await node.exited).toBe(1);
    });
  }
});
