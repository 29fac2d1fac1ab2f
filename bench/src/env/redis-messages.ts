import { Redis } from 'ioredis';

/**
 * Counts what this process receives from Redis on its subscriber connections: every pub/sub
 * delivery (`message`, `smessage`, `pmessage`, counted by their Buffer events) and every stream entry an `XREAD` returns (the
 * Socket.IO streams adapter reads that way). Installed by the bench node launcher only, by wrapping
 * ioredis' prototype: the node's code is unchanged.
 */
export function countRedisMessages(): () => number {
  let received = 0;
  const proto = Redis.prototype as unknown as {
    emit(event: string | symbol, ...args: unknown[]): boolean;
    xread(...args: unknown[]): Promise<unknown>;
  };
  const emit = proto.emit;
  proto.emit = function (this: unknown, event, ...args) {
    // ioredis emits the Buffer form of every delivery (the string form only when someone listens).
    if (event === 'messageBuffer' || event === 'smessageBuffer' || event === 'pmessageBuffer') received += 1;
    return emit.call(this, event, ...args);
  };
  const xread = proto.xread;
  proto.xread = function (this: unknown, ...args) {
    return xread.apply(this, args).then((reply) => {
      // [[stream, [[id, fields], ...]], ...] or null on a timeout.
      if (Array.isArray(reply))
        for (const [, entries] of reply as [string, unknown[]][]) received += entries.length;
      return reply;
    });
  };
  return () => received;
}
