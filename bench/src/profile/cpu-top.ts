/**
 * `node bench/dist/profile/cpu-top.js <file.cpuprofile>... [--top N]`
 * Sums self time over V8 CPU profiles by function and by package (node_modules/<pkg>, our
 * workspaces, node internals) and prints the biggest, with their share of all samples. A third
 * table charges native and `node:` self time (socket writes, microtasks) to the nearest package frame
 * above it, so a `writeUtf8String` shows up under ioredis, socket.io or Hono, whichever wrote.
 * A fourth table gives inclusive (total) time by function: a sample counts once for every distinct
 * function on its stack, so a per-request set-up shows with all it calls.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Which package a script URL belongs to. */
export function packageOf(url: string): string {
  if (!url) return '(native/gc/idle)';
  if (url.startsWith('node:')) return 'node:internal';
  const inModules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (inModules?.[1]) return inModules[1];
  const ours = url.match(/\/work\/main\/([^/]+\/[^/]+)\//) ?? url.match(/\/(packages|services)\/([^/]+)\//);
  return ours ? `ours:${ours[1]}${ours[2] ? `/${ours[2]}` : ''}` : url;
}

/** Whose self time a package's is, for the caller view: native and `node:` frames are nobody's. */
const OWNERLESS = new Set(['(native/gc/idle)', 'node:internal']);

/**
 * Per node, the nearest package above it that is neither native nor `node:` (itself when it is one);
 * `(idle)`, `(program)` and `(garbage collector)` stay what they are.
 */
export function callerPackages(profile: Profile): Map<number, string> {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const owner = new Map<number, string>();
  const find = (id: number): string => {
    const known = owner.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id) as ProfileNode;
    const own = packageOf(node.callFrame.url);
    const up = parent.get(id);
    const result = !OWNERLESS.has(own)
      ? own
      : node.callFrame.functionName.startsWith('(')
        ? node.callFrame.functionName
        : up === undefined
          ? own
          : find(up);
    owner.set(id, result);
    return result;
  };
  for (const n of profile.nodes) find(n.id);
  return owner;
}

/** Self time in ms per key over one profile. */
export function selfTimes(profile: Profile, key: (node: ProfileNode) => string): Map<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const k = key(node);
    totals.set(k, (totals.get(k) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return totals;
}

/** Inclusive time in ms per key: each sample counts once for each distinct key on its stack. */
export function totalTimes(profile: Profile, key: (node: ProfileNode) => string): Map<string, number> {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const keysOf = new Map<number, Set<string>>();
  const stackKeys = (id: number): Set<string> => {
    const known = keysOf.get(id);
    if (known) return known;
    const up = parent.get(id);
    const keys = new Set(up === undefined ? [] : stackKeys(up));
    keys.add(key(byId.get(id) as ProfileNode));
    keysOf.set(id, keys);
    return keys;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    if (!byId.has(id)) return;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    for (const k of stackKeys(id)) totals.set(k, (totals.get(k) ?? 0) + ms);
  });
  return totals;
}

function print(title: string, totals: Map<string, number>, top: number): void {
  const all = [...totals.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`\n${title} (total ${all.toFixed(0)} ms)\n`);
  for (const [k, ms] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(
      `${((100 * ms) / all).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${k}\n`,
    );
  }
}

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 30;
const files = args.filter((a, i) => a !== '--top' && i !== topAt + 1);
const merged = {
  byPackage: new Map<string, number>(),
  byCaller: new Map<string, number>(),
  byFunction: new Map<string, number>(),
  totalByFunction: new Map<string, number>(),
};
const functionKey = (n: ProfileNode): string => {
  const { functionName, url, lineNumber } = n.callFrame;
  return `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/\/work\/[^/]+\//, '')}:${lineNumber + 1}`;
};
for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const add = (into: Map<string, number>, from: Map<string, number>) => {
    for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
  };
  add(
    merged.byPackage,
    selfTimes(profile, (n) => packageOf(n.callFrame.url)),
  );
  const callers = callerPackages(profile);
  add(
    merged.byCaller,
    selfTimes(profile, (n) => callers.get(n.id) ?? '?'),
  );
  add(merged.byFunction, selfTimes(profile, functionKey));
  add(merged.totalByFunction, totalTimes(profile, functionKey));
}
print('self time by package', merged.byPackage, top);
print(
  'self time by caller package (native and node: time charged to the package above it)',
  merged.byCaller,
  top,
);
print('self time by function', merged.byFunction, top);
printInclusive(merged.totalByFunction, merged.byFunction, top);

/** Inclusive times, as shares of all samples (the tables above sum to 100 %; this one does not). */
function printInclusive(totals: Map<string, number>, self: Map<string, number>, top: number): void {
  const all = [...self.values()].reduce((a, b) => a + b, 0);
  process.stdout.write(`\ntotal (inclusive) time by function, share of all ${all.toFixed(0)} ms\n`);
  for (const [k, ms] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(
      `${((100 * ms) / all).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${k}\n`,
    );
  }
}
