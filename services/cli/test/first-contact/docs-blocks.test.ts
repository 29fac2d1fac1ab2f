import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bareHitlCommands, repositoryShellBlocks, shellBlocks } from './markdown-blocks.js';
import { bash, killGroup, privateLoopback, REPO_ROOT, startInBackground, userEnv } from './shell.js';

// Every shell block of README.md and docs/*.md runs as written, top to bottom, against the node that
// `npm start` brings up (the README's first block), with the ports and commands of the text itself.
// A block fenced ```sh illustration is only shown (a server that runs until stopped, a benchmark of
// minutes, the test suite itself). Nothing here edits the text: a block that fails is a doc to fix.

const blocks = repositoryShellBlocks(REPO_ROOT);
const runnable = blocks.filter((b) => !b.illustration);
const walkthrough = blocks.find((b) => b.file === 'README.md' && b.script.includes('send_inquiry'));

let state: string;
let env: Record<string, string>;
let net: Awaited<ReturnType<typeof privateLoopback>>;
let node: Awaited<ReturnType<typeof startInBackground>> | undefined;

beforeAll(async () => {
  state = await mkdtemp(join(tmpdir(), 'hitl-docs-'));
  env = userEnv({ HITL_STATE_DIR: state });
  net = await privateLoopback();
  node = await startInBackground('npm start', {
    cwd: REPO_ROOT,
    env,
    ready: /device URL:\s+\S+/,
    timeoutMs: 300_000,
    ...(net ? { wrap: net.wrap } : {}),
  });
}, 300_000);

afterAll(async () => {
  if (node) killGroup(node.child, 'SIGTERM');
  net?.close();
  await rm(state, { recursive: true, force: true });
});

const run = (script: string) =>
  bash(script, { cwd: REPO_ROOT, env, timeoutMs: 840_000, ...(net ? { wrap: net.wrap } : {}) });

describe('the shell blocks of README.md and docs/*.md', () => {
  it('the node came up on the port the docs name', () => {
    expect(node?.output()).toContain('http://127.0.0.1:8787/mcp');
  });

  for (const block of runnable) {
    it(`${block.file}:${block.line} runs as written`, async () => {
      const result = await run(block.script);
      expect(result.code, `${block.script}\n---\n${result.stdout}\n${result.stderr}`).toBe(0);
    }, 900_000);
  }

  it('name the command the way a user can type it (npx hitl), also in illustrations', () => {
    const bare = blocks.flatMap((b) =>
      bareHitlCommands(b.script).map((line) => `${b.file}:${b.line}: ${line}`),
    );
    expect(bare).toEqual([]);
  });
});

describe("the README's curl walkthrough", () => {
  it('answers the held call "yes", 20 runs out of 20', async () => {
    expect(walkthrough).toBeDefined();
    for (let i = 1; i <= 20; i++) {
      const result = await run(walkthrough?.script ?? 'false');
      expect(result.code, `run ${i}: ${result.stderr}`).toBe(0);
      expect(result.stdout, `run ${i}`).toMatch(
        /"status":"answered".*"answer":"yes"|"answer":"yes".*"status":"answered"/,
      );
    }
  }, 600_000);
});

describe('reading the blocks', () => {
  it('tells a bare hitl command from npx hitl and from a word hitl in arguments', () => {
    const script = [
      'hitl serve',
      'X=1 hitl answer',
      'A=$(hitl token create --user u --role agent)',
      'a && hitl decide',
      'npx hitl serve',
      'T=$(npx hitl token create --user u --role device) npx hitl answer',
      'claude mcp add --transport http hitl http://127.0.0.1:8787/mcp',
    ].join('\n');
    expect(bareHitlCommands(script)).toEqual([
      'hitl serve',
      'X=1 hitl answer',
      'A=$(hitl token create --user u --role agent)',
      'a && hitl decide',
    ]);
  });

  it('finds sh / bash / shell fences, keeps their order and marks illustrations', () => {
    const text = [
      '# T',
      '```sh',
      'echo one',
      '```',
      '```json',
      '{"a": 1}',
      '```',
      '````bash illustration',
      'npm run bench',
      '```',
      '````',
    ].join('\n');
    expect(shellBlocks('X.md', text)).toEqual([
      { file: 'X.md', line: 2, script: 'echo one', illustration: false },
      { file: 'X.md', line: 8, script: 'npm run bench\n```', illustration: true },
    ]);
  });
});
