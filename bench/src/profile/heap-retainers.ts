/**
 * `node bench/dist/profile/heap-retainers.js <file.heapsnapshot> <Constructor> [--depth N]`
 * Who keeps the instances of a constructor alive: for each instance, the chain of first strong
 * retainers up to `depth` steps, grouped (array indices folded), most common chains first.
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

interface Parent {
  from: number;
  type: string;
  name: string;
}

/** Retainer chains of every object named `name`, as `[chain, count]`, most common first. */
export function retainerChains(raw: RawSnapshot, name: string, depth: number): [string, number][] {
  const { node_fields: nf, edge_fields: ef, node_types: nt, edge_types: et } = raw.snapshot.meta;
  const nw = nf.length;
  const ew = ef.length;
  const count = raw.nodes.length / nw;
  const at = (i: number, field: string) => raw.nodes[i * nw + nf.indexOf(field)] as number;
  const nameOf = (i: number) => raw.strings[at(i, 'name')] ?? '';
  const typeOf = (i: number) => nt[0][at(i, 'type')] ?? '?';
  const parents = new Map<number, Parent[]>();
  let e = 0;
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < at(i, 'edge_count'); k++, e++) {
      const to = (raw.edges[e * ew + ef.indexOf('to_node')] as number) / nw;
      const type = et[0][raw.edges[e * ew + ef.indexOf('type')] as number] ?? '?';
      const label = raw.edges[e * ew + ef.indexOf('name_or_index')] as number;
      const edgeName = type === 'element' || type === 'hidden' ? '[]' : (raw.strings[label] ?? '');
      const list = parents.get(to) ?? [];
      list.push({ from: i, type, name: edgeName });
      parents.set(to, list);
    }
  }
  const chains = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    if (nameOf(i) !== name || typeOf(i) !== 'object') continue;
    const steps: string[] = [];
    for (let cur = i, d = 0; d < depth; d++) {
      const parent = (parents.get(cur) ?? []).find((p) => p.type !== 'weak');
      if (!parent) break;
      steps.push(`${nameOf(parent.from).slice(0, 40) || typeOf(parent.from)}.${parent.name}`);
      cur = parent.from;
    }
    const chain = steps.join(' <- ').replace(/\.\d+\b/g, '.N');
    chains.set(chain, (chains.get(chain) ?? 0) + 1);
  }
  return [...chains].sort((a, b) => b[1] - a[1]);
}

const [file, name, flag, depthArg] = process.argv.slice(2);
if (isMain(import.meta.url) && file && name) {
  const depth = flag === '--depth' ? Number(depthArg) : 8;
  const chains = retainerChains(JSON.parse(readFileSync(file, 'utf8')) as RawSnapshot, name, depth);
  for (const [chain, n] of chains.slice(0, 10)) process.stdout.write(`${String(n).padStart(7)}  ${chain}\n`);
}
