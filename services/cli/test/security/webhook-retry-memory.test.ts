import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Delivery } from '@hitl/protocol';
import { freePort } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, type NodeProcess, rpcPost, spawnNode, token } from '../node-process.js';

/**
 * Finding 6 (issue 34): webhook retries kept every body in memory, so one token creating big
 * inquiries while a webhook's target is down grew a node by ~200 MB a minute. Now the bodies kept
 * for waiting retries are capped per webhook and per user: the oldest retries are dropped and
 * recorded failed, visible to ops in `GET /api/webhooks/deliveries`, and the node says what it holds
 * (`hitl_webhook_retry_bytes`). The target here is a closed loopback port (connection refused).
 */

const PER_USER = 256 * 1024;
const PER_WEBHOOK = 1024 * 1024;

/** About 90 KB of inquiry: a full question, 100 long options, a full context. */
function bigInquiry(i: number) {
  return {
    question: `flood ${i} ${'q'.repeat(8000)}`,
    options: Array.from({ length: 100 }, (_, k) => `${k} ${'o'.repeat(490)}`),
    context: 'c'.repeat(30_000),
    timeoutMs: 40_000,
  };
}

describe('security: webhook retries keep a bounded amount of memory', () => {
  let node: NodeProcess;
  let dir: string;
  const flooder = `flooder-${randomBytes(3).toString('hex')}`;
  const other = `other-${randomBytes(3).toString('hex')}`;
  const calls: AbortController[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hitl-retry-memory-'));
    const file = join(dir, 'directory.json');
    const webhooks = [
      {
        url: `http://127.0.0.1:${await freePort()}/down`,
        secret: `whsec_${randomBytes(24).toString('base64')}`,
        events: ['inquiry.created'],
      },
    ];
    await writeFile(file, JSON.stringify({ webhooks }));
    node = await spawnNode({
      HITL_DIRECTORY_FILE: file,
      HITL_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      // Retries wait 10 minutes: none fires while the test runs, so every body stays held.
      HITL_WEBHOOK_BACKOFF_MS: '600000',
      HITL_WEBHOOK_RETRY_BYTES: String(PER_WEBHOOK),
      HITL_WEBHOOK_RETRY_BYTES_PER_USER: String(PER_USER),
    });
  });
  afterAll(async () => {
    for (const call of calls) call.abort();
    await node?.kill();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const ask = (user: string, i: number) => {
    const controller = new AbortController();
    calls.push(controller);
    void rpcPost(
      node.url,
      user,
      {
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'send_inquiry', arguments: bigInquiry(i) },
      },
      controller.signal,
    ).catch(() => undefined);
  };

  const deliveries = async (): Promise<Delivery[]> => {
    const response = await fetch(`${node.url}/api/webhooks/deliveries?limit=200`, {
      headers: { authorization: `Bearer ${await token('retry-ops', 'ops')}` },
    });
    return ((await response.json()) as { items: Delivery[] }).items;
  };

  const retryBytes = async (): Promise<number> => {
    const text = await (await fetch(`${node.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('hitl_webhook_retry_bytes '));
    return Number(line?.split(' ')[1] ?? Number.NaN);
  };

  it('drops the oldest retries of one user past the cap, records them failed, and keeps other users', async () => {
    ask(other, 0);
    await eventually(async () =>
      (await deliveries()).some((d) => d.userId === other && d.attempts.length > 0),
    );

    const floods = 8;
    for (let i = 1; i <= floods; i++) {
      ask(flooder, i);
      // One at a time, so "oldest" is the order asked in.
      await eventually(async () => (await deliveries()).filter((d) => d.userId === flooder).length >= i);
    }
    let items: Delivery[] = [];
    await eventually(async () => {
      items = (await deliveries()).filter((d) => d.userId === flooder);
      return items.length === floods && items.every((d) => d.attempts.length > 0);
    }, 20_000);
    // Settled: every first attempt failed (connection refused); drops happen as retries are held.
    await eventually(async () => {
      items = (await deliveries()).filter((d) => d.userId === flooder);
      const failed = items.filter((d) => d.status === 'failed').length;
      const pending = items.filter((d) => d.status === 'pending').length;
      return failed + pending === floods && pending <= 2 && pending >= 1;
    }).catch(() => {
      // Asserted below, with the numbers.
    });

    const held = await retryBytes();
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThanOrEqual(PER_USER + PER_USER);

    const oldestFirst = [...items].sort((a, b) => a.createdAt - b.createdAt);
    const pending = oldestFirst.filter((d) => d.status === 'pending');
    const dropped = oldestFirst.filter((d) => d.status === 'failed');
    expect(dropped.length).toBeGreaterThanOrEqual(floods - 2);
    // The newest are the ones still waiting; the dropped ones say why, with no further attempt planned.
    expect(oldestFirst.slice(-pending.length)).toEqual(pending);
    for (const d of dropped) {
      expect(d.nextAttemptAt).toBeUndefined();
      expect(d.attempts.at(-1)?.error).toMatch(/^not retried: dropped .*HITL_WEBHOOK_RETRY_BYTES_PER_USER/);
      expect(d.attempts.at(-1)?.status).toBeUndefined();
    }
    // Another user's retry is not what pays for the flood.
    const others = (await deliveries()).filter((d) => d.userId === other);
    expect(others.map((d) => d.status)).toEqual(['pending']);

    // The node still serves.
    expect((await fetch(`${node.url}/healthz`)).status).toBe(200);
  }, 60_000);
});
