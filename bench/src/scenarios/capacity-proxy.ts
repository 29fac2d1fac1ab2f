import { type ChildProcess, fork } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '@hitl/store/testing';
import type { Fields } from '../core/summary.js';
import { rssBytes } from '../env/limits.js';
import { BENCH_NODE_ENV, BENCH_SECRET, listeningUrl, startNode } from '../env/nodes.js';
import { inspectFlag, startProbe } from '../env/probe-handle.js';
import { allNext, startWorker, type WorkerHandle } from '../env/workers.js';
import type { CapacityParams, CapacityResult } from '../load/capacity.js';
import type { ProxyCapacityParams, ProxyCapacityResult } from '../load/proxy-capacity.js';
import { sleep } from '../load/util.js';
import { measure } from './capacity.js';
import { faultFields, param, type ScenarioContext, sumFaults } from './context.js';

const PROXY_MAIN = fileURLToPath(new URL('../env/proxy-main.js', import.meta.url));
/** A held approval at the proxy may cost at most this many times a held `send_inquiry` at a node. */
const GOAL_RATIO = 1.5;
const KB = 1024;
const MB = 1024 * 1024;

/**
 * Capacity of the approval proxy: `held` destructive calls held at a real `hitl proxy` process (gated,
 * in front of the echo backend) while each waits for a person at a real node on Redis. RSS per held
 * approval at the proxy process (VmRSS after a full GC, above idle; `node_rss_per_approval_kb` is
 * what the node holds for each). Every approval is then approved from the users' devices and each
 * call must run on the backend with its own arguments. Then, on the same node in the same run, as
 * many held `send_inquiry` calls (the capacity scenario's load): RSS per held call there.
 * Goal: a held approval at the proxy ≤ 1.5× a held `send_inquiry` at the node (`proxy_to_send`).
 * `--set snapshot=1` writes heap snapshots of the proxy at idle and parked.
 */
export async function capacityProxy(ctx: ScenarioContext): Promise<Fields> {
  const held = param(ctx, 'held', { quick: 300, full: 3000 });
  const workers = param(ctx, 'workers', { quick: 1, full: 2 });
  const users = param(ctx, 'users', { quick: 5, full: 20 });
  const settleMs = param(ctx, 'settleMs', { quick: 500, full: 2000 });
  const redis = await startRedisServer();
  ctx.cleanup.add(() => redis.stop());
  const inspect = await inspectFlag();
  // The node's default heartbeat: the proxy's client to the node times a wait out after 60 s
  // without progress, so the capacity scenario's 60 s heartbeats would fail the approvals.
  const node = await startNode(0, { redisUrl: redis.url, execArgv: [inspect.flag] });
  ctx.cleanup.add(() => node.stop());
  const probe = startProbe(inspect.port);
  ctx.cleanup.add(() => probe.stop());
  const proxy = await startProxyProcess(node.url);
  ctx.cleanup.add(() => proxy.stop());
  const nodeMemory = () =>
    measure(
      node,
      () => Promise.resolve(0),
      () => probe.ask({ op: 'gc' }),
    );

  const base = { secret: BENCH_SECRET, proxyUrl: proxy.url, nodeUrl: node.url, users, ramp: 100 };
  const warm = startWorker<ProxyCapacityResult>('proxy-capacity', {
    ...base,
    tag: 'warm',
    held: 50,
    answerAtOnce: true,
  } satisfies ProxyCapacityParams);
  ctx.cleanup.add(() => warm.kill());
  await warm.result;
  const { rss: idleProxy, heapUsed: idleProxyHeap } = await proxy.gcMemory();
  // `--set snapshot=1`: heap snapshots of the proxy at idle and parked (for profile/heap-diff.js).
  const snapshot = ctx.overrides.snapshot ? join(tmpdir(), `hitl-bench-proxy-heap-${Date.now()}`) : undefined;
  if (snapshot) await proxy.snapshot(`${snapshot}-idle.heapsnapshot`);
  const idleNode = await nodeMemory();
  ctx.log(`idle RSS: proxy ${(idleProxy / MB).toFixed(1)} MB, node ${(idleNode.rss / MB).toFixed(1)} MB`);
  const load: WorkerHandle<ProxyCapacityResult>[] = Array.from({ length: workers }, (_, w) => {
    const share = Math.ceil(held / workers);
    const params: ProxyCapacityParams = { ...base, tag: `px${w}`, held: Math.min(share, held - w * share) };
    const worker = startWorker<ProxyCapacityResult>('proxy-capacity', params);
    ctx.cleanup.add(() => worker.kill());
    return worker;
  });
  const parked = await allNext<{ parked: number }>(load, 'parked');
  const heldAtProxy = parked.reduce((a, p) => a + p.parked, 0);
  await sleep(settleMs);
  const { rss: parkedProxy, heapUsed: parkedProxyHeap } = await proxy.gcMemory();
  if (snapshot) {
    await proxy.snapshot(`${snapshot}-parked.heapsnapshot`);
    ctx.log(`proxy heap snapshots: ${snapshot}-{idle,parked}.heapsnapshot`);
  }
  const parkedNode = await nodeMemory();
  ctx.log(`parked: proxy ${(parkedProxy / MB).toFixed(1)} MB, node ${(parkedNode.rss / MB).toFixed(1)} MB`);
  for (const worker of load) worker.signal('answer');
  const results = await Promise.all(load.map((w) => w.result));
  const answered = results.reduce((a, r) => a + r.answered, 0);
  for (const r of results) for (const s of r.samples) ctx.log(`fault: ${s}`);
  // The same node, now holding as many plain `send_inquiry` calls (the capacity scenario's load). The
  // approvals' memory is let go first, so the node's idle RSS is not read while it still shrinks.
  await sleep(settleMs);
  const sendIdle = await nodeMemory();
  const send = await heldSendInquiries(ctx, node.url, users, held, workers);
  await sleep(settleMs);
  const sendParked = await nodeMemory();
  for (const worker of send) worker.signal('answer');
  const sendResults = await Promise.all(send.map((w) => w.result));
  const sendAnswered = sendResults.reduce((a, r) => a + r.answered, 0);
  const allFaults = faultFields(sumFaults([...results, ...sendResults].map((r) => r.faults)));
  for (const r of sendResults) for (const s of r.samples) ctx.log(`fault: ${s}`);

  // Per approval that reached a device (a call that failed is a fault and holds nothing).
  const perApproval = Math.max(1, heldAtProxy);
  const proxyPerCall = (parkedProxy - idleProxy) / perApproval / KB;
  const sendPerCall = (sendParked.rss - sendIdle.rss) / held / KB;
  const ratio = proxyPerCall / sendPerCall;
  return {
    held_target: held,
    held: heldAtProxy,
    rss_idle_mb: idleProxy / MB,
    rss_parked_mb: parkedProxy / MB,
    rss_per_call_kb: proxyPerCall,
    heap_per_call_kb: (parkedProxyHeap - idleProxyHeap) / perApproval / KB,
    node_rss_per_approval_kb: (parkedNode.rss - idleNode.rss) / perApproval / KB,
    send_rss_per_call_kb: sendPerCall,
    send_heap_per_call_kb: (sendParked.heapUsed - sendIdle.heapUsed) / held / KB,
    proxy_to_send: ratio,
    release_all_s: Math.max(...results.map((r) => r.releaseMs)) / 1000,
    answered,
    send_answered: sendAnswered,
    ...allFaults,
    ok: allFaults.faults === 0 && answered === held && heldAtProxy === held && sendAnswered === held,
    goal: ratio <= GOAL_RATIO ? 'met' : 'missed',
  };
}

/** Parks `held` suspended `send_inquiry` calls on the node (the capacity scenario's load). */
async function heldSendInquiries(
  ctx: ScenarioContext,
  url: string,
  users: number,
  held: number,
  workers: number,
): Promise<WorkerHandle<CapacityResult>[]> {
  const load = Array.from({ length: workers }, (_, w) => {
    const share = Math.ceil(held / workers);
    const params: CapacityParams = {
      secret: BENCH_SECRET,
      url,
      users,
      ramp: 200,
      tag: `send${w}`,
      held: Math.min(share, held - w * share),
    };
    const worker = startWorker<CapacityResult>('capacity', params);
    ctx.cleanup.add(() => worker.kill());
    return worker;
  });
  await allNext(load, 'parked');
  return load;
}

interface ProxyProcess {
  url: string;
  /** Writes a V8 heap snapshot of the proxy process to `file`. */
  snapshot(file: string): Promise<void>;
  /** VmRSS and heap of the proxy process after a full GC there. */
  gcMemory(): Promise<{ rss: number; heapUsed: number }>;
  stop(): Promise<void>;
}

/** Forks `proxy-main` (with `--expose-gc`) and resolves once it listens. */
async function startProxyProcess(inquiryUrl: string): Promise<ProxyProcess> {
  const child: ChildProcess = fork(PROXY_MAIN, [], {
    execArgv: ['--expose-gc'],
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      HITL_SECRET: BENCH_SECRET,
      HITL_STATE_DIR: mkdtempSync(join(tmpdir(), 'hitl-bench-proxy-')),
      HITL_STORE: 'memory',
      LOG_LEVEL: 'silent',
      HITL_RATE_PER_MIN: '0',
      // The node's long tiers: no approval expires while the run holds it.
      HITL_DEVICE_TIMEOUT_MS: BENCH_NODE_ENV.HITL_DEVICE_TIMEOUT_MS ?? '',
      HITL_SERVICE_TIMEOUT_MS: BENCH_NODE_ENV.HITL_SERVICE_TIMEOUT_MS ?? '',
      HITL_CLIENT_TIMEOUT_MS: BENCH_NODE_ENV.HITL_CLIENT_TIMEOUT_MS ?? '',
      BENCH_INQUIRY_URL: inquiryUrl,
    },
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4096);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await listeningUrl(child, exited, 'the proxy', () => tail);
  return {
    url,
    snapshot: async (file) => {
      const written = new Promise<void>((resolve) => {
        const onMessage = (message: { type?: string }) => {
          if (message.type !== 'snapshot-written') return;
          child.off('message', onMessage);
          resolve();
        };
        child.on('message', onMessage);
      });
      child.send({ type: 'snapshot', file });
      await written;
    },
    gcMemory: async () => {
      const stats = new Promise<NodeJS.MemoryUsage>((resolve) => {
        const onMessage = (message: { type?: string } & NodeJS.MemoryUsage) => {
          if (message.type !== 'stats') return;
          child.off('message', onMessage);
          resolve(message);
        };
        child.on('message', onMessage);
      });
      child.send({ type: 'stats' });
      const { heapUsed } = await stats;
      await sleep(500);
      return { rss: rssBytes(child.pid as number), heapUsed };
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
