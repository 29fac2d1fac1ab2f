import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Import cycles inside a package fail `npm run lint` (biome's noImportCycles). Between packages biome
 * sees only built `dist/`, so this test holds the joints: what each workspace's `src/` imports of
 * another (`@hitl/...`) is a declared dependency, packages never import services, no service but the
 * cli depends on or imports another service (not even in its tests), and those imports
 * form no cycle.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCOPE = '@hitl/';

interface Workspace {
  name: string;
  dir: string;
  declared: Set<string>;
  imports: Map<string, string>;
  /** Dev dependencies too: what its tests may use. */
  declaredForTests: Set<string>;
  /** What its `test/` imports. */
  testImports: Map<string, string>;
}

/** The one service that composes the others: the `hitl` binary. */
const COMPOSER = '@hitl/cli';

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
      const declaredForTests = new Set([...declared, ...Object.keys({ ...pkg.devDependencies })]);
      const testImports = scopedImports(sourceFiles(join(dir, 'test')));
      testImports.delete(pkg.name);
      return {
        name: pkg.name as string,
        dir: relative(ROOT, dir),
        declared,
        imports,
        declaredForTests,
        testImports,
      };
    });
}

/**
 * Each way a service other than the composer leans on another service: a dependency of any kind
 * (run time or dev), or an import from its `src/` or its `test/`. Services stand alone on packages.
 */
function serviceCrossings(workspaces: readonly Workspace[]): string[] {
  const services = new Set(workspaces.filter((w) => w.dir.startsWith('services/')).map((w) => w.name));
  return workspaces
    .filter((w) => services.has(w.name) && w.name !== COMPOSER)
    .flatMap((w) => [
      ...[...w.declaredForTests]
        .filter((name) => services.has(name) && name !== w.name)
        .map((name) => `${w.name} depends on ${name} (package.json)`),
      ...[...w.imports, ...w.testImports]
        .filter(([name]) => services.has(name))
        .map(([name, file]) => `${w.name} imports ${name} (${file})`),
    ]);
}

/** A workspace's `@hitl/` dependencies as the graph in docs/ARCHITECTURE.md writes them: `deps` and `dev: devs`. */
type Edges = { deps: string[]; dev: string[] };

/** The graph block of ARCHITECTURE.md (`name ← a, b   dev: c`), by short name (`inquiry` for `@hitl/inquiry`). */
function documentedGraph(markdown: string): Map<string, Edges> {
  const start = markdown.indexOf('Dependencies point one way');
  const block = markdown.slice(start).split('```')[1] ?? '';
  const names = (list: string) =>
    list
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean)
      .sort();
  const graph = new Map<string, Edges>();
  for (const line of block.split('\n')) {
    const match = /^(\S+)\s*←\s*(.*?)\s*(?:dev:\s*(.*))?$/.exec(line.trim());
    if (match) graph.set(match[1] ?? '', { deps: names(match[2] ?? ''), dev: names(match[3] ?? '') });
  }
  return graph;
}

/** The same graph read from the `package.json` files. */
function declaredGraph(): Map<string, Edges> {
  const short = (names: Iterable<string>) =>
    [...names]
      .filter((n) => n.startsWith(SCOPE))
      .map((n) => n.slice(SCOPE.length))
      .sort();
  return new Map(
    workspaceDirs()
      .filter((dir) => existsSync(join(dir, 'package.json')))
      .map((dir) => {
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        const name = (pkg.name as string).slice(SCOPE.length);
        return [
          name,
          {
            deps: short(Object.keys({ ...pkg.dependencies })),
            dev: short(Object.keys({ ...pkg.devDependencies })),
          },
        ];
      }),
  );
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

  it('no service but the cli depends on or imports another service', () => {
    expect(serviceCrossings(workspaces)).toEqual([]);
  });

  it('the crossing check names a service that leans on another, and lets the cli compose them', () => {
    const workspace = (name: string, dir: string, leansOn: string[], by: 'dep' | 'test'): Workspace => ({
      name,
      dir,
      declared: new Set(by === 'dep' ? leansOn : []),
      imports: new Map(),
      declaredForTests: new Set(leansOn),
      testImports: new Map(by === 'test' ? leansOn.map((n) => [n, `${dir}/test/x.test.ts`]) : []),
    });
    expect(
      serviceCrossings([
        workspace('@hitl/a', 'services/a', ['@hitl/b'], 'dep'),
        workspace('@hitl/b', 'services/b', ['@hitl/some-package'], 'dep'),
        workspace('@hitl/c', 'services/c', ['@hitl/a'], 'test'),
        workspace(COMPOSER, 'services/cli', ['@hitl/a', '@hitl/b'], 'dep'),
        workspace('@hitl/some-package', 'packages/some-package', [], 'dep'),
      ]),
    ).toEqual([
      '@hitl/a depends on @hitl/b (package.json)',
      '@hitl/c depends on @hitl/a (package.json)',
      '@hitl/c imports @hitl/a (services/c/test/x.test.ts)',
    ]);
  });

  it('the graph in docs/ARCHITECTURE.md is the one the package.json files declare', () => {
    const documented = documentedGraph(readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8'));
    expect(documented.size).toBeGreaterThan(10);
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(declaredGraph()));
  });

  it('reads the documented graph line by line', () => {
    const doc = 'Dependencies point one way.\n```\nprotocol ←\nweb ← protocol, client   dev: inquiry\n```\n';
    expect(Object.fromEntries(documentedGraph(doc))).toEqual({
      protocol: { deps: [], dev: [] },
      web: { deps: ['client', 'protocol'], dev: ['inquiry'] },
    });
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
