/**
 * `node bench/dist/profile/heap-retained.js <parked.heapsnapshot> <calls> <Constructor>...`
 * For each constructor name: the bytes kept alive only through its instances (what would be freed
 * if they went away), per held call. Each name is measured on its own, so sets can overlap.
 * Method: mark everything reachable from the GC roots without passing through an instance, then
 * everything reachable from the instances; the second set minus the first is what they retain.
 */
import { readFileSync } from 'node:fs';
import { isMain } from './main.js';

interface RawSnapshot {
  snapshot: {
    meta: { node_fields: string[]; edge_fields: string[]; node_types: [string[]]; edge_types: [string[]] };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** The snapshot as adjacency lists over node ordinals. */
export interface Graph {
  names: string[];
  sizes: number[];
  /** Strong edges of node i: targets[firstEdge[i] .. firstEdge[i + 1]). */
  firstEdge: Int32Array;
  targets: Int32Array;
}

export function toGraph(raw: RawSnapshot): Graph {
  const { node_fields: nf, edge_fields: ef, edge_types: et } = raw.snapshot.meta;
  const nw = nf.length;
  const ew = ef.length;
  const count = raw.nodes.length / nw;
  const weak = et[0].indexOf('weak');
  const names: string[] = new Array(count);
  const sizes: number[] = new Array(count);
  const firstEdge = new Int32Array(count + 1);
  const targets: number[] = [];
  let e = 0;
  for (let i = 0; i < count; i++) {
    names[i] = raw.strings[raw.nodes[i * nw + nf.indexOf('name')] as number] ?? '';
    sizes[i] = raw.nodes[i * nw + nf.indexOf('self_size')] as number;
    firstEdge[i] = targets.length;
    const edges = raw.nodes[i * nw + nf.indexOf('edge_count')] as number;
    for (let k = 0; k < edges; k++, e++) {
      if (raw.edges[e * ew + ef.indexOf('type')] === weak) continue;
      targets.push((raw.edges[e * ew + ef.indexOf('to_node')] as number) / nw);
    }
  }
  firstEdge[count] = targets.length;
  return { names, sizes, firstEdge, targets: Int32Array.from(targets) };
}

function mark(graph: Graph, from: number[], blocked: Uint8Array, seen: Uint8Array): void {
  const stack = [...from];
  for (const n of from) seen[n] = 1;
  while (stack.length > 0) {
    const n = stack.pop() as number;
    for (let k = graph.firstEdge[n] as number; k < (graph.firstEdge[n + 1] as number); k++) {
      const t = graph.targets[k] as number;
      if (seen[t] || blocked[t]) continue;
      seen[t] = 1;
      stack.push(t);
    }
  }
}

/** Bytes retained only through the nodes named `name`, and how many such nodes there are. */
export function retainedBy(graph: Graph, name: string): { instances: number; bytes: number } {
  const count = graph.names.length;
  const blocked = new Uint8Array(count);
  const instances: number[] = [];
  for (let i = 0; i < count; i++) {
    if (graph.names[i] === name) {
      blocked[i] = 1;
      instances.push(i);
    }
  }
  const fromRoots = new Uint8Array(count);
  mark(graph, [0], blocked, fromRoots);
  const fromInstances = new Uint8Array(count);
  mark(graph, instances, new Uint8Array(count), fromInstances);
  let bytes = 0;
  for (let i = 0; i < count; i++) if (fromInstances[i] && !fromRoots[i]) bytes += graph.sizes[i] as number;
  return { instances: instances.length, bytes };
}

const [file, callsArg, ...names] = process.argv.slice(2);
if (isMain(import.meta.url) && file && callsArg) {
  const calls = Number(callsArg);
  const graph = toGraph(JSON.parse(readFileSync(file, 'utf8')) as RawSnapshot);
  process.stdout.write('KB/call  instances  retained only through\n');
  for (const name of names) {
    const { instances, bytes } = retainedBy(graph, name);
    process.stdout.write(
      `${(bytes / calls / 1024).toFixed(1).padStart(7)}  ${String(instances).padStart(9)}  ${name}\n`,
    );
  }
}
