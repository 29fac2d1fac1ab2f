import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/*
 * Tests wait on events (a socket event, a log line, a store state through `eventually`, a process
 * exit), not on clocks. A fixed sleep is allowed only where time itself is under test (a tier, a
 * TTL, "nothing happens for a while"), and then a comment on the same line or in the comment lines
 * right above it says so. `sleep` is defined once, in `@hitl/store/testing`. The patterns are built
 * from parts so this file does not match itself.
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const TREES = ['packages/', 'services/', 'web/', 'mobile-shell/', 'bench/'];
/** The one sleep helper's home: its definition is not a sleep. */
const SLEEP_HOME = 'packages/store/src/testing/fixtures.ts';

const MARKER = /time (itself )?is under test|time under test/i;
const SLEEPS: RegExp[] = [
  new RegExp(`\\b${'sle'}ep\\(`), // sleep(ms), from @hitl/store/testing
  new RegExp(`set${'Timeout'}\\(\\s*\\(?(r|res|resolve|done|ok)\\)?\\s*(,|=>\\s*\\w+\\(\\)\\s*,)`), // new Promise((r) => setTimeout(r, ms))
  new RegExp(`waitFor${'Timeout'}\\(`), // Playwright's page.waitForTimeout(ms)
  new RegExp(`timers/${'promises'}`), // setTimeout from node:timers/promises
  /\b(delay|pause|nap|wait)\(\s*\d/, // delay(300) and kin
];
const OWN_HELPER = new RegExp(`\\b(function|const|let)\\s+${'sle'}ep\\b`);

/** Whether `file` is test code: a test, a test helper, or a package's `src/testing`. */
export function isTestFile(file: string): boolean {
  if (!TREES.some((tree) => file.startsWith(tree)) || file.includes('node_modules/')) return false;
  if (!/\.(ts|tsx|mts|js|mjs)$/.test(file)) return false;
  return /\/test\//.test(file) || /\.test\.tsx?$/.test(file) || /\/src\/testing\//.test(file);
}

/** The `line: text` of every fixed sleep in `text` without a marker on its line or in the comment right above. */
export function unmarkedSleeps(text: string): string[] {
  const lines = text.split('\n');
  const found: string[] = [];
  lines.forEach((line, index) => {
    const code = line.replace(/\/\/.*$/, '');
    if (!SLEEPS.some((pattern) => pattern.test(code))) return;
    if (OWN_HELPER.test(code)) {
      found.push(`${index + 1}: a sleep helper of its own (use the one in @hitl/store/testing)`);
      return;
    }
    if (MARKER.test(line)) return;
    for (let above = index - 1; above >= 0 && /^\s*(\/\/|\*|\/\*)/.test(lines[above] ?? ''); above--) {
      if (MARKER.test(lines[above] ?? '')) return;
    }
    found.push(`${index + 1}: ${line.trim()}`);
  });
  return found;
}

function testFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter((file) => file !== SLEEP_HOME && isTestFile(file) && existsSync(join(ROOT, file)));
}

describe('tests wait on events, not clocks', () => {
  it('the scan sees the test files of every tree, and recognises a marked and an unmarked sleep', () => {
    const files = testFiles();
    for (const tree of TREES)
      expect(
        files.some((file) => file.startsWith(tree)),
        tree,
      ).toBe(true);
    expect(files).toContain('services/cli/test/no-fixed-sleeps.test.ts');
    expect(isTestFile('services/inquiry/src/core/ports.ts')).toBe(false);
    const sleepy = ['sle', 'ep(300)'].join('');
    const timer = ['await new Promise((r) => set', 'Timeout(r, 300));'].join('');
    const playwright = ['await page.waitFor', 'Timeout(500);'].join('');
    for (const wait of [`await ${sleepy};`, timer, playwright]) {
      expect(unmarkedSleeps(`const a = 1;\n${wait}\n`)).toEqual([`2: ${wait}`]);
      expect(unmarkedSleeps(`// time itself is under test: the tier\n${wait}\n`)).toEqual([]);
      expect(unmarkedSleeps(`// time under test: a TTL\n// that lapses\n${wait}\n`)).toEqual([]);
      expect(unmarkedSleeps(`${wait} // time under test: a TTL\n`)).toEqual([]);
      expect(unmarkedSleeps(`// time under test: a TTL\nconst b = 2;\n${wait}\n`)).toHaveLength(1);
    }
    const deadline = ['const t = set', 'Timeout(() => reject(new Error("late")), 5000);'].join('');
    expect(unmarkedSleeps(deadline)).toEqual([]);
    const ownHelper = ['const sle', 'ep = (ms: number) => new Promise((r) => set', 'Timeout(r, ms));'];
    expect(unmarkedSleeps(ownHelper.join(''))).toHaveLength(1);
  });

  it('every fixed sleep in a test says that time itself is under test', () => {
    const found = testFiles().flatMap((file) =>
      unmarkedSleeps(readFileSync(join(ROOT, file), 'utf8')).map((hit) => `${file}:${hit}`),
    );
    expect(found).toEqual([]);
  });
});
