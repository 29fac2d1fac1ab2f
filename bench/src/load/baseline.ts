import { Redis } from 'ioredis';
import { io, type Socket } from 'socket.io-client';
import { encodeHist, type Hist, newHist, recordMs } from '../core/hist.js';
import type { TaskContext } from '../env/worker-protocol.js';
import { deferred, Faults, now, until, within } from './util.js';

export interface BaselineParams {
  redisUrl: string;
  /** The bare server (see baseline-server.ts). */
  url: string;
  samples: number;
  warmup: number;
  /** Held requests kept open while the releases are timed. */
  open: number;
}

export interface BaselineResult {
  redis: string;
  sio: string;
  hono: string;
  faults: Record<string, number>;
  samples: string[];
}

/** Times the three floors one at a time, one operation in flight. */
export async function baselineLoad(p: BaselineParams, _ctx: TaskContext): Promise<BaselineResult> {
  const faults = new Faults();
  const redis = await redisRoundTrip(p, faults);
  const socket = io(p.url, { transports: ['websocket'], reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  try {
    const sio = await socketRoundTrip(socket, p, faults);
    const hono = await heldRelease(socket, p, faults);
    return {
      redis: encodeHist(redis),
      sio: encodeHist(sio),
      hono: encodeHist(hono),
      faults: faults.counts,
      samples: faults.samples,
    };
  } finally {
    socket.disconnect();
  }
}

/** PUBLISH on one connection → `message` on another, through the Redis server. */
async function redisRoundTrip(p: BaselineParams, faults: Faults): Promise<Hist> {
  const hist = newHist();
  const pub = new Redis(p.redisUrl);
  const sub = new Redis(p.redisUrl);
  try {
    let waiter: ((message: string) => void) | undefined;
    sub.on('message', (_channel: string, message: string) => waiter?.(message));
    await sub.subscribe('bench:rtt');
    for (let i = 0; i < p.warmup + p.samples; i++) {
      const got = deferred<string>();
      waiter = got.resolve;
      const t0 = now();
      await pub.publish('bench:rtt', String(i));
      const message = await within(got.promise, 5000, 'redis message');
      if (i >= p.warmup) recordMs(hist, now() - t0);
      if (message !== String(i)) faults.add('redis', `expected ${i}, got ${message}`);
    }
  } finally {
    pub.disconnect();
    sub.disconnect();
  }
  return hist;
}

async function socketRoundTrip(socket: Socket, p: BaselineParams, faults: Faults): Promise<Hist> {
  const hist = newHist();
  for (let i = 0; i < p.warmup + p.samples; i++) {
    const t0 = now();
    const echoed = (await socket.timeout(5000).emitWithAck('ping', i)) as number;
    if (i >= p.warmup) recordMs(hist, now() - t0);
    if (echoed !== i) faults.add('sio', `expected ${i}, got ${echoed}`);
  }
  return hist;
}

/** `open` POSTs held by Hono; each release (a socket.io event) is timed to the full response body. */
async function heldRelease(socket: Socket, p: BaselineParams, faults: Faults): Promise<Hist> {
  const hist = newHist();
  const held = new Set<number>();
  socket.on('held', (n: number) => held.add(n));
  const open = new Map<number, Promise<number>>();
  const hold = (n: number) => {
    const done = fetch(`${p.url}/hold/${n}`, { method: 'POST', body: 'x' })
      .then((r) => r.json() as Promise<{ n: number }>)
      .then((body) => {
        if (body.n !== n) faults.add('hono', `expected ${n}, got ${body.n}`);
        return now();
      });
    done.catch(() => faults.add('hono', `request ${n} failed`));
    open.set(n, done);
  };
  let next = 0;
  while (next < p.open) hold(next++);
  await until(() => held.size >= p.open, 30_000, 'held requests');
  for (let i = 0; i < p.warmup + p.samples; i++) {
    const n = i;
    await until(() => held.has(n), 5000, `held request ${n}`, 1);
    const t0 = now();
    socket.emit('release', n);
    const t1 = await within(open.get(n) as Promise<number>, 5000, `release ${n}`);
    if (i >= p.warmup) recordMs(hist, t1 - t0);
    open.delete(n);
    held.delete(n);
    hold(next++);
  }
  // A release the server gets before the request itself is lost (it holds nothing yet), and that
  // request would then wait forever: release only what the server says it holds.
  await until(() => [...open.keys()].every((n) => held.has(n)), 30_000, 'held before the final releases');
  for (const n of open.keys()) socket.emit('release', n);
  await within(Promise.allSettled(open.values()), 10_000, 'final releases');
  return hist;
}
