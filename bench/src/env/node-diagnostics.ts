/**
 * Bench-only, env-gated diagnostics for a node process (all off unless the variables are set; the
 * runner passes every `BENCH_*` variable on to its nodes). Used for issue 21 (the holding node's
 * scavenges): `BENCH_GC_LOG=/tmp/gc/run node bench/dist/run.js resume-cross`.
 * - `BENCH_GC_LOG=<prefix>`: every 5 s, `<prefix>-<node id>.log` gets the HTTP requests served and the
 *   minor / major GC pauses (count, total ms, max) of that window; at the end, minor GCs and their ms
 *   per 1,000 requests over the busy windows (≥ 200 requests).
 * - `BENCH_HEAP_PROF=<prefix>`: V8's sampling heap profiler (every `BENCH_HEAP_PROF_INTERVAL` bytes,
 *   4096) from `BENCH_HEAP_PROF_DELAY_MS` on until `BENCH_HEAP_PROF_STOP_MS` (or the node's stop),
 *   written to `<prefix>-<node id>.heapprofile`. `BENCH_HEAP_PROF_MODE`: `live` (default; after a
 *   full GC, what is retained), `alloc` (every sample: what was allocated), `promoted` (what outlived
 *   the young generation, or is alive).
 * `BENCH_NODE_FLAGS` (node flags, e.g. `--trace-gc-nvp`) and `BENCH_NODE_STDOUT=<prefix>` (the node's
 * stdout to `<prefix>-<index>.txt`) are read by nodes.ts.
 */
import { channel } from 'node:diagnostics_channel';
import { appendFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { PerformanceObserver } from 'node:perf_hooks';

export function startDiagnostics(env: NodeJS.ProcessEnv): () => Promise<void> {
  const id = env.HITL_NODE_ID ?? String(process.pid);
  const stops: (() => Promise<void>)[] = [];
  if (env.BENCH_GC_LOG) stops.push(gcLog(`${env.BENCH_GC_LOG}-${id}.log`));
  if (env.BENCH_HEAP_PROF)
    stops.push(
      heapProf(
        `${env.BENCH_HEAP_PROF}-${id}.heapprofile`,
        Number(env.BENCH_HEAP_PROF_DELAY_MS ?? 0),
        Number(env.BENCH_HEAP_PROF_STOP_MS ?? 0),
        env.BENCH_HEAP_PROF_MODE ?? 'live',
      ),
    );
  return async () => {
    for (const stop of stops) await stop();
  };
}

function gcLog(file: string): () => Promise<void> {
  const w = { requests: 0, minor: 0, minorMs: 0, minorMax: 0, major: 0, majorMs: 0 };
  const total = { requests: 0, minor: 0, minorMs: 0, windows: 0 };
  const onRequest = () => {
    w.requests++;
  };
  channel('http.server.request.start').subscribe(onRequest);
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind: number } }).detail?.kind;
      if (kind === 1) {
        w.minor++;
        w.minorMs += e.duration;
        w.minorMax = Math.max(w.minorMax, e.duration);
      } else {
        w.major++;
        w.majorMs += e.duration;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  writeFileSync(file, '');
  const start = Date.now();
  const flush = () => {
    const heap = process.memoryUsage().heapUsed / 2 ** 20;
    appendFileSync(
      file,
      `t=${((Date.now() - start) / 1000).toFixed(0)}s req=${w.requests} minor=${w.minor} minorMs=${w.minorMs.toFixed(1)} max=${w.minorMax.toFixed(1)} major=${w.major} majorMs=${w.majorMs.toFixed(1)} heapMB=${heap.toFixed(0)}\n`,
    );
    // Steady windows only: busy (hundreds of requests), not the ramp-up (parking) or the drain.
    if (w.requests >= 200) {
      total.requests += w.requests;
      total.minor += w.minor;
      total.minorMs += w.minorMs;
      total.windows++;
    }
    Object.assign(w, { requests: 0, minor: 0, minorMs: 0, minorMax: 0, major: 0, majorMs: 0 });
  };
  const timer = setInterval(flush, 5000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    flush();
    observer.disconnect();
    channel('http.server.request.start').unsubscribe(onRequest);
    const per = (n: number) => ((n / total.requests) * 1000).toFixed(2);
    appendFileSync(
      file,
      `total windows=${total.windows} req=${total.requests} minor/1000req=${per(total.minor)} minorMs/1000req=${per(total.minorMs)}\n`,
    );
  };
}

function heapProf(file: string, delayMs: number, stopMs: number, mode: string): () => Promise<void> {
  const session = new Session();
  session.connect();
  const post = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))),
    );
  let started: Promise<unknown> | undefined;
  const timer = setTimeout(() => {
    started = post('HeapProfiler.enable').then(() =>
      post('HeapProfiler.startSampling', {
        samplingInterval: Number(process.env.BENCH_HEAP_PROF_INTERVAL ?? 4096),
        // alloc: every sample; promoted: those that outlived the young generation; live: still alive.
        includeObjectsCollectedByMinorGC: mode === 'alloc',
        includeObjectsCollectedByMajorGC: mode !== 'live',
      }),
    );
  }, delayMs);
  timer.unref();
  let done = false;
  const stop = async () => {
    clearTimeout(timer);
    if (!started || done) return;
    done = true;
    await started;
    if (mode === 'live') await post('HeapProfiler.collectGarbage');
    const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
    writeFileSync(file, JSON.stringify(profile));
    session.disconnect();
  };
  if (stopMs > 0) setTimeout(() => void stop(), stopMs).unref();
  return stop;
}
