/**
 * One inquiry node as its own process: the same two calls `hitl serve` makes
 * (`loadConfig(process.env)` then `startNode`), so memory and CPU figures are the node's alone.
 * Reports its URL to the runner over IPC and stops when the runner goes away.
 */
import { loadConfig, startNode } from '@hitl/inquiry';

const node = await startNode(loadConfig(process.env));
process.send?.({ type: 'listening', url: node.url, pid: process.pid });

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  node.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The runner died or dropped us: nothing may outlive a benchmark.
process.on('disconnect', stop);
