import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Import cycles inside a package fail `npm run lint` (biome's noImportCycles). Between packages biome
 * sees only built `dist/`, so this test holds the joints: what each workspace's `src/` imports of
 * another (`@hitl/...`) is a declared dependency, packages never import services, and those imports
 * form no cycle.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCOPE = '@hitl/';

interface Workspace {
  name: string;
  dir: string;
  declared: Set<string>;
  imports: Map<string, string>;
}

function workspaceDirs(): string[] {
  const globs: string[] = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).workspaces;
  return globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [join(ROOT, glob)];
    const parent = join(ROOT, glob.slice(0, -2));
    return readdirSync(parent, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(parent, d.name));
  });
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((f) => f.isFile() && /\.(ts|tsx|mts|js|mjs)$/.test(f.name) && !f.name.endsWith('.d.ts'))
    .map((f) => join(f.parentPath, f.name));
}

/** Each `@hitl/...` package a file imports (static, dynamic or re-export), with the first file naming it. */
function scopedImports(files: string[]): Map<string, string> {
  const found = new Map<string, string>();
  const pattern = /(?:from|import)\s*\(?\s*['"](@hitl\/[\w-]+)(?:\/[\w/-]+)?['"]/g;
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(pattern)) {
      const name = match[1] ?? '';
      if (!found.has(name)) found.set(name, relative(ROOT, file));
    }
  }
  return found;
}

function loadWorkspaces(): Workspace[] {
  return workspaceDirs()
    .filter((dir) => existsSync(join(dir, 'package.json')))
    .map((dir) => {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const declared = new Set(Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies }));
      const imports = scopedImports(sourceFiles(join(dir, 'src')));
      imports.delete(pkg.name);
      return { name: pkg.name as string, dir: relative(ROOT, dir), declared, imports };
    });
}

/** One cycle in `graph` as the path that closes it (`a → b → a`), or undefined when there is none. */
function findCycle(graph: Map<string, Iterable<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('the package graph', () => {
  const workspaces = loadWorkspaces();

  it('finds the workspaces and their imports', () => {
    const names = workspaces.map((w) => w.name);
    expect(names).toEqual(expect.arrayContaining(['@hitl/protocol', '@hitl/inquiry', '@hitl/cli']));
    expect(workspaces.find((w) => w.name === '@hitl/inquiry')?.imports.has('@hitl/protocol')).toBe(true);
  });

  it('a source import of another workspace is a declared dependency', () => {
    const undeclared = workspaces.flatMap((w) =>
      [...w.imports]
        .filter(([name]) => !w.declared.has(name))
        .map(([name, file]) => `${w.name} imports ${name} (${file}) without declaring it`),
    );
    expect(undeclared).toEqual([]);
  });

  it('packages never import services', () => {
    const services = new Set(workspaces.filter((w) => w.dir.startsWith('services/')).map((w) => w.name));
    const wrong = workspaces
      .filter((w) => w.dir.startsWith('packages/'))
      .flatMap((w) =>
        [...w.imports].filter(([name]) => services.has(name)).map(([name, file]) => `${name} in ${file}`),
      );
    expect(wrong).toEqual([]);
  });

  it('has no cycle', () => {
    const graph = new Map(
      workspaces.map((w) => [w.name, [...w.imports.keys()].filter((n) => n.startsWith(SCOPE))]),
    );
    expect(findCycle(graph)?.join(' → ')).toBeUndefined();
  });

  it('the cycle finder names a cycle it is given', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(findCycle(graph)).toEqual(['a', 'b', 'c', 'a']);
    expect(
      findCycle(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toBeUndefined();
  });
});
