// Test instrumentation, preloaded into a real node with `--import` (never shipped): appends every
// pub/sub delivery the node's Redis connections receive to the file HITL_TEST_REDIS_TAP names, one
// JSON line each ({channel, payload}), so a test can say what a node heard.
import { appendFileSync } from 'node:fs';
import { Redis } from 'ioredis';

const file = process.env.HITL_TEST_REDIS_TAP;
if (file) {
  const emit = Redis.prototype.emit;
  Redis.prototype.emit = function (event, ...args) {
    // ioredis emits the Buffer form of every delivery (the string form only when someone listens).
    if (event === 'messageBuffer' || event === 'smessageBuffer') {
      const [channel, payload] = args;
      appendFileSync(
        file,
        `${JSON.stringify({ channel: String(channel), payload: String(payload ?? '') })}\n`,
      );
    }
    return emit.call(this, event, ...args);
  };
}
