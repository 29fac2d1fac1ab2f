/**
 * `node bench/dist/profile/heap-diff.js <idle.heapsnapshot> <parked.heapsnapshot> <calls> [--top N]`
 * What each held call keeps alive, from two V8 heap snapshots (the capacity scenario writes them
 * with `--set snapshot=1`): self size and count per constructor / closure / string kind, parked
 * minus idle, divided by the number of held calls.
 */
import { readFileSync } from 'node:fs';
import { isMain } from './main.js';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface Bucket {
  count: number;
  bytes: number;
}

/** Self size and count of every object kind in one snapshot. */
export function bucketsOf(snapshot: Snapshot): Map<string, Bucket> {
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const at = {
    type: fields.indexOf('type'),
    name: fields.indexOf('name'),
    size: fields.indexOf('self_size'),
  };
  const buckets = new Map<string, Bucket>();
  for (let i = 0; i < snapshot.nodes.length; i += width) {
    const type = types[snapshot.nodes[i + at.type] as number] ?? '?';
    const name = snapshot.strings[snapshot.nodes[i + at.name] as number] ?? '';
    const key = keyOf(type, name);
    const bucket = buckets.get(key) ?? { count: 0, bytes: 0 };
    bucket.count++;
    bucket.bytes += snapshot.nodes[i + at.size] as number;
    buckets.set(key, bucket);
  }
  return buckets;
}

function keyOf(type: string, name: string): string {
  if (type === 'object' || type === 'native') return `${type} ${name}`;
  if (type === 'closure') return `closure ${name || '(anonymous)'}`;
  if (type === 'string' || type === 'concatenated string' || type === 'sliced string') return '(strings)';
  if (type === 'array') return `array ${name}`;
  return `(${type})`;
}

/** Per-call difference (parked − idle) / calls, biggest first. */
export function perCall(idle: Map<string, Bucket>, parked: Map<string, Bucket>, calls: number) {
  const rows = [...parked].map(([key, b]) => {
    const before = idle.get(key) ?? { count: 0, bytes: 0 };
    return { key, count: (b.count - before.count) / calls, bytes: (b.bytes - before.bytes) / calls };
  });
  return rows.sort((a, b) => b.bytes - a.bytes);
}

const [idleFile, parkedFile, callsArg, ...rest] = process.argv.slice(2);
if (isMain(import.meta.url) && idleFile && parkedFile && callsArg) {
  const calls = Number(callsArg);
  const top = rest[0] === '--top' ? Number(rest[1]) : 40;
  const read = (file: string) => bucketsOf(JSON.parse(readFileSync(file, 'utf8')) as Snapshot);
  const rows = perCall(read(idleFile), read(parkedFile), calls);
  const total = rows.reduce((a, r) => a + r.bytes, 0);
  process.stdout.write(`heap self size per held call: ${(total / 1024).toFixed(1)} KB over ${calls} calls\n`);
  process.stdout.write('bytes/call  objects/call  kind\n');
  for (const r of rows.slice(0, top)) {
    process.stdout.write(
      `${r.bytes.toFixed(0).padStart(10)}  ${r.count.toFixed(2).padStart(12)}  ${r.key}\n`,
    );
  }
}
