/**
 * One inquiry node as its own process: the same two calls `hitl serve` makes
 * (`loadConfig(process.env)` then `startNode`), so memory and CPU figures are the node's alone.
 * Reports its URL to the runner over IPC and stops when the runner goes away.
 */
import { loadConfig, startNode } from '@hitl/inquiry';
import { startDiagnostics } from './node-diagnostics.js';
import { countRedisMessages } from './redis-messages.js';

const received = countRedisMessages();
const stopDiagnostics = startDiagnostics(process.env);

const node = await startNode(loadConfig(process.env));
process.send?.({ type: 'listening', url: node.url, pid: process.pid });
// The runner may ask for what this process used so far (`scale-out` does, before and after a window).
// With `gc: true` (and the node started with `--expose-gc`) a full collection runs first, so the heap
// figure is what the node retains.
process.on('message', (message: { type?: string; gc?: boolean }) => {
  if (message.type !== 'stats') return;
  if (message.gc) (globalThis as { gc?: () => void }).gc?.();
  const cpu = process.cpuUsage();
  const memory = process.memoryUsage();
  process.send?.({
    type: 'stats',
    messages: received(),
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBytes: memory.rss,
    heapUsedBytes: memory.heapUsed,
  });
});

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  stopDiagnostics()
    .then(() => node.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The runner died or dropped us: nothing may outlive a benchmark.
process.on('disconnect', stop);
