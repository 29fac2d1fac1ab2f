/**
 * `node bench/dist/profile/heap-dominators.js <parked.heapsnapshot> <calls> [--top N]`
 * Builds the dominator tree of a V8 heap snapshot (Cooper–Harvey–Kennedy) and prints, per
 * constructor, the bytes its instances retain (outermost instances only, so nothing is counted
 * twice within a row), per held call. Rows whose instance count is a multiple of the call count
 * are the per-call structures.
 */
import { readFileSync } from 'node:fs';
import { type Graph, toGraph } from './heap-retained.js';
import { isMain } from './main.js';

/** Immediate dominators and DFS post-order numbers of every node reachable from node 0. */
export function dominators(graph: Graph): { idom: Int32Array; post: Int32Array; order: number[] } {
  const count = graph.names.length;
  const post = new Int32Array(count).fill(-1);
  const order: number[] = [];
  const visited = new Uint8Array(count);
  const stack: number[] = [0];
  const cursor = new Int32Array(count);
  visited[0] = 1;
  for (let i = 0; i < count; i++) cursor[i] = graph.firstEdge[i] as number;
  while (stack.length > 0) {
    const n = stack[stack.length - 1] as number;
    if ((cursor[n] as number) < (graph.firstEdge[n + 1] as number)) {
      const t = graph.targets[cursor[n] as number] as number;
      cursor[n] = (cursor[n] as number) + 1;
      if (!visited[t]) {
        visited[t] = 1;
        stack.push(t);
      }
    } else {
      stack.pop();
      post[n] = order.length;
      order.push(n);
    }
  }
  const preds: number[][] = Array.from({ length: count }, () => []);
  for (const n of order)
    for (let k = graph.firstEdge[n] as number; k < (graph.firstEdge[n + 1] as number); k++)
      (preds[graph.targets[k] as number] as number[]).push(n);
  const idom = new Int32Array(count).fill(-1);
  idom[0] = 0;
  const intersect = (a: number, b: number) => {
    while (a !== b) {
      while ((post[a] as number) < (post[b] as number)) a = idom[a] as number;
      while ((post[b] as number) < (post[a] as number)) b = idom[b] as number;
    }
    return a;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let i = order.length - 2; i >= 0; i--) {
      const n = order[i] as number;
      let next = -1;
      for (const p of preds[n] as number[]) {
        if (idom[p] === -1) continue;
        next = next === -1 ? p : intersect(p, next);
      }
      if (next !== -1 && idom[n] !== next) {
        idom[n] = next;
        changed = true;
      }
    }
  }
  return { idom, post, order };
}

/** Retained bytes per node: its own size plus everything it dominates. */
export function retainedSizes(graph: Graph, idom: Int32Array, order: number[]): Float64Array {
  const retained = new Float64Array(graph.names.length);
  for (const n of order) retained[n] = graph.sizes[n] as number;
  for (const n of order) {
    const d = idom[n] as number;
    if (n !== 0 && d >= 0) retained[d] = (retained[d] as number) + (retained[n] as number);
  }
  return retained;
}

const [file, callsArg, flag, topArg] = process.argv.slice(2);
if (isMain(import.meta.url) && file && callsArg) {
  const calls = Number(callsArg);
  const top = flag === '--top' ? Number(topArg) : 40;
  const graph = toGraph(JSON.parse(readFileSync(file, 'utf8')));
  const { idom, order } = dominators(graph);
  const retained = retainedSizes(graph, idom, order);
  const rows = new Map<string, { instances: number; bytes: number }>();
  for (const n of order) {
    const name = graph.names[n] as string;
    let outermost = true;
    for (let d = idom[n] as number; d !== 0 && d !== -1; d = idom[d] as number) {
      if (graph.names[d] === name) {
        outermost = false;
        break;
      }
    }
    const row = rows.get(name) ?? { instances: 0, bytes: 0 };
    row.instances++;
    if (outermost) row.bytes += retained[n] as number;
    rows.set(name, row);
  }
  process.stdout.write('KB/call  instances/call  constructor (outermost instances; rows overlap)\n');
  const sorted = [...rows]
    .filter(([, r]) => r.instances >= calls * 0.9)
    .sort((a, b) => b[1].bytes - a[1].bytes);
  for (const [name, r] of sorted.slice(0, top)) {
    process.stdout.write(
      `${(r.bytes / calls / 1024).toFixed(2).padStart(7)}  ${(r.instances / calls).toFixed(2).padStart(13)}  ${name.slice(0, 80)}\n`,
    );
  }
}
