import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startBanner } from '../src/commands/banner.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));
/** How the README shortens a token. */
const SHORT = 'eyJhbGciOi...';

describe("the README's sample start banner", () => {
  it('is what a first `npm start` prints (the banner code, tokens shortened)', () => {
    const readme = readFileSync(README, 'utf8');
    const sample = readme.match(/`npm start` then prints something like:\n\n```\n([\s\S]*?)```/)?.[1];
    expect(sample, 'the sample block after "`npm start` then prints something like:"').toBeDefined();
    const printed = startBanner('http://127.0.0.1:8787', 'embedded store', {
      agent: SHORT,
      device: SHORT,
      ops: SHORT,
    });
    expect(sample?.trim()).toBe(printed.trim());
  });
});
