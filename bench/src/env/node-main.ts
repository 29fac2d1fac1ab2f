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
process.on('message', (message: { type?: string }) => {
  if (message.type !== 'stats') return;
  const cpu = process.cpuUsage();
  process.send?.({
    type: 'stats',
    messages: received(),
    cpuMs: (cpu.user + cpu.system) / 1000,
    rssBytes: process.memoryUsage().rss,
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
