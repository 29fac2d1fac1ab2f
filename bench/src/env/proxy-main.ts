/**
 * One approval proxy (`hitl proxy`, HTTP) as its own process, in front of the echo backend and the
 * inquiry node at `BENCH_INQUIRY_URL`, gated: every destructive call is put to a person. Reports its
 * URL to the runner over IPC; answers `stats` (after a full GC: started with `--expose-gc`) with its
 * memory, and `snapshot` by writing a V8 heap snapshot to `file`; stops when the runner goes away.
 */
import { fileURLToPath } from 'node:url';
import { writeHeapSnapshot } from 'node:v8';
import { loadConfig } from '@hitl/inquiry';
import { createProxyLogger, parsePolicy, startProxy } from '@hitl/mcp-proxy';

const ECHO = fileURLToPath(new URL('../load/echo-backend.js', import.meta.url));

const proxy = await startProxy({
  backend: { kind: 'command', command: `node ${ECHO}`, name: 'echo' },
  policy: parsePolicy({ mode: 'gated' }),
  inquiryUrl: process.env.BENCH_INQUIRY_URL ?? '',
  config: loadConfig(process.env),
  logger: createProxyLogger('silent', true),
});
process.send?.({ type: 'listening', url: proxy.url, pid: process.pid });
process.on('message', (message: { type?: string; file?: string }) => {
  if (message.type === 'snapshot' && message.file) {
    writeHeapSnapshot(message.file);
    process.send?.({ type: 'snapshot-written' });
    return;
  }
  if (message.type !== 'stats') return;
  (globalThis as { gc?: () => void }).gc?.();
  process.send?.({ type: 'stats', ...process.memoryUsage() });
});
process.on('disconnect', () => {
  proxy.close().finally(() => process.exit(0));
});
