/// <reference types="node" />
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const NODE_BUILTINS = new Set(builtinModules);

/** Every module specifier a file imports, re-exports, dynamically imports or requires. */
function specifiersOf(source: string): string[] {
  const patterns = [
    /\bfrom\s+['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]/g,
    /\bimport\s+['"]([^'"]+)['"]/g,
  ];
  patterns.push(/\brequire\s*\(\s*['"]([^'"]+)['"]/g);
  return patterns.flatMap((pattern) => [...source.matchAll(pattern)].map((match) => match[1] ?? ''));
}

function isNodeBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || NODE_BUILTINS.has(specifier.split('/')[0] ?? '');
}

describe('@hitl/protocol is browser-safe', () => {
  const files = readdirSync(SRC).filter((name) => name.endsWith('.ts'));

  it('has source files to check', () => {
    expect(files).toContain('index.ts');
  });

  it('the scanner recognises node built-ins', () => {
    const sample = `import { readFileSync } from 'node:fs';\nimport path from 'path';\nconst os = require('os');`;
    expect(specifiersOf(sample).filter(isNodeBuiltin)).toEqual(['node:fs', 'path', 'os']);
  });

  it.each(files)('%s imports no node built-in', (name) => {
    const specifiers = specifiersOf(readFileSync(join(SRC, name), 'utf8'));
    expect(specifiers.filter(isNodeBuiltin)).toEqual([]);
  });

  it('imports nothing but zod and its own files', () => {
    const external = files
      .flatMap((name) => specifiersOf(readFileSync(join(SRC, name), 'utf8')))
      .filter((specifier) => !specifier.startsWith('./'));
    expect(new Set(external)).toEqual(new Set(['zod']));
  });
});
