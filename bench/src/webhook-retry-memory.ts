/**
 * `node bench/dist/webhook-retry-memory.js [--seconds 60] [--uncapped]`
 *
 * Issue 34, finding 6, measured: one agent token creates and cancels ~233 KB inquiries as fast as its
 * rate limit (600 messages a minute) lets it, while the one webhook's target is down (a closed
 * loopback port: every attempt is refused at once, so every body waits for its retries, 17.6 min at
 * the default backoff). Prints the node's resident memory before, its peak and its end (sampled every
 * second), its V8 heap after a full collection at the start and at the end (what it retains), and
 * what the node says it holds for retries (`hitl_webhook_retry_bytes`). `--uncapped`
 * sets both caps to 1 GiB: how the node behaved before the caps.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TokenService } from '@hitl/auth';
import { freePort } from '@hitl/store/testing';
import { formatLine } from './core/summary.js';
import { BENCH_SECRET, nodeStats, nodeStatsAfterGc, startNode } from './env/nodes.js';

const args = process.argv.slice(2);
const seconds = Number(args[args.indexOf('--seconds') + 1] || 60) || 60;
const uncapped = args.includes('--uncapped');
const log = (message: string) => process.stderr.write(`[retry-memory] ${message}\n`);
const MB = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** ~233 KB of arguments: a full question and context, and a form of four long choice lists. */
function bigArguments(i: number) {
  return {
    question: `flood ${i} ${'q'.repeat(8000)}`,
    context: 'c'.repeat(32 * 1024 - 100),
    questions: Array.from({ length: 4 }, (_, q) => ({
      id: `q${q}`,
      prompt: 'p'.repeat(1900),
      kind: 'choice',
      options: Array.from({ length: 100 }, (_, k) => `${i}.${q}.${k} ${'o'.repeat(460)}`),
    })),
    timeoutMs: 40_000,
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-retry-memory-'));
  const directory = join(dir, 'directory.json');
  const hook = `http://127.0.0.1:${await freePort()}/down`;
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const webhooks = [{ url: hook, secret, events: ['inquiry.created', 'inquiry.resolved'] }];
  writeFileSync(directory, JSON.stringify({ webhooks }));
  const node = await startNode(0, {
    execArgv: ['--expose-gc'],
    env: {
      HITL_STORE: 'sqlite',
      HITL_DIRECTORY_FILE: directory,
      HITL_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      // The node's defaults: the attacker stays within its token's budget.
      HITL_RATE_PER_MIN: '600',
      HITL_MAX_PENDING_PER_USER: '1000',
      ...(uncapped
        ? {
            HITL_WEBHOOK_RETRY_BYTES: String(1024 ** 3),
            HITL_WEBHOOK_RETRY_BYTES_PER_USER: String(1024 ** 3),
          }
        : {}),
    },
  });
  const token = await new TokenService(BENCH_SECRET).sign({ sub: 'flooder', role: 'agent' });
  const post = (message: unknown, signal?: AbortSignal) =>
    fetch(`${node.url}/mcp`, {
      method: 'POST',
      ...(signal ? { signal } : {}),
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify(message),
    });
  const retryBytes = async () => {
    const text = await (await fetch(`${node.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith('hitl_webhook_retry_bytes '));
    return Number(line?.split(' ')[1] ?? Number.NaN);
  };

  const bodyBytes = Buffer.byteLength(JSON.stringify(bigArguments(0)));
  await new Promise((r) => setTimeout(r, 2000));
  const start = await nodeStatsAfterGc(node);
  const before = start.rssBytes;
  log(
    `node up; arguments of ${(bodyBytes / 1024).toFixed(0)} KB; RSS ${MB(before)} MB; ${uncapped ? 'uncapped' : 'default caps'}`,
  );
  let peak = before;
  const sampler = setInterval(() => {
    void nodeStats(node)
      .then((s) => {
        peak = Math.max(peak, s.rssBytes);
      })
      .catch(() => undefined);
  }, 1000);

  const until = Date.now() + seconds * 1000;
  let created = 0;
  let refused = 0;
  let nextId = 1;
  // Four loops of one token: create, cancel 50 ms later; a 429 waits 200 ms.
  const loop = async () => {
    while (Date.now() < until) {
      const id = nextId++;
      const call = new AbortController();
      const response = post(
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name: 'send_inquiry', arguments: bigArguments(id) },
        },
        call.signal,
      ).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 50));
      const cancel = await post({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id },
      });
      call.abort();
      const first = await response;
      if (first?.status === 429 || cancel.status === 429) {
        refused++;
        await new Promise((r) => setTimeout(r, 200));
      } else created++;
    }
  };
  await Promise.all([loop(), loop(), loop(), loop()]);
  clearInterval(sampler);
  await new Promise((r) => setTimeout(r, 2000));
  const last = await nodeStatsAfterGc(node);
  const end = last.rssBytes;
  peak = Math.max(peak, end);
  const held = await retryBytes();
  const mb = (bytes: number) => Number(MB(bytes));
  const line = formatLine({
    scenario: 'webhook-retry-memory',
    fields: {
      mode: uncapped ? 'uncapped' : 'default-caps',
      seconds,
      inquiries: created,
      rate_limited: refused,
      argument_kb: Math.round(bodyBytes / 1024),
      rss_start_mb: mb(before),
      rss_peak_mb: mb(peak),
      rss_end_mb: mb(end),
      heap_start_mb: mb(start.heapUsedBytes),
      heap_end_mb: mb(last.heapUsedBytes),
      retry_bytes_mb: mb(held),
    },
  });
  process.stdout.write(`${line}\n`);
  await node.stop();
  rmSync(dir, { recursive: true, force: true });
  rmSync(node.stateDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
