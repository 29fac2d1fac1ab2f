import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A fenced shell block of a Markdown file. */
export interface ShellBlock {
  /** Repository-relative file, e.g. `docs/DEVICES.md`. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  script: string;
  /** Fenced ```` ```sh illustration ````: shown to the reader, never run. */
  illustration: boolean;
}

const SHELLS = new Set(['sh', 'bash', 'shell']);
const FENCE = /^(`{3,}|~{3,})\s*(.*)$/;

/** The shell blocks of one Markdown text, in order. Other fences (json, ts, plain) are not shell. */
export function shellBlocks(file: string, text: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = lines[i]?.match(FENCE);
    if (!open?.[1]) continue;
    const fence = open[1];
    const words = (open[2] ?? '').trim().split(/\s+/);
    const end = lines.findIndex((l, j) => j > i && l.trimEnd() === fence);
    const stop = end === -1 ? lines.length : end;
    if (SHELLS.has(words[0] ?? '')) {
      const script = lines.slice(i + 1, stop).join('\n');
      blocks.push({ file, line: i + 1, script, illustration: words.includes('illustration') });
    }
    i = stop;
  }
  return blocks;
}

/** README.md, then every docs/*.md in name order: the files a newcomer reads. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...docs];
}

/** Every shell block of the repository's docs, top to bottom, file by file. */
export function repositoryShellBlocks(root: string): ShellBlock[] {
  return docFiles(root).flatMap((file) => shellBlocks(file, readFileSync(join(root, file), 'utf8')));
}

/**
 * Lines that run `hitl` in a command position without `npx` (it is on no PATH): at the start of a
 * line, after `;`, `&`, `|`, `(` or `$(`, or after `VAR=value` assignments.
 */
export function bareHitlCommands(script: string): string[] {
  const bare = /(^|[;&|(]|\$\()\s*(\w+=\S*\s+)*hitl\s/;
  return script.split('\n').filter((line) => bare.test(line.replace(/npx hitl\s/g, 'npx-hitl ')));
}
