import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type FakeChatModel, startFakeChatModel } from '@hitl/decisions/testing';
import type { DecisionRecord, Page } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuse, SHORT_TIERS } from './decision-helpers.js';
import { body, STORE_KINDS, startTestNode, type TestNode } from './harness.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const BIN = join(ROOT, 'services/cli/dist/bin.js');
const SECRET = 'shared-secret-between-the-node-and-hitl-decide!';

/** The packages `hitl decide` runs on, each with the built file that must be newer than its sources. */
const BUILT = [
  ['packages/protocol', 'dist/index.js'],
  ['packages/store', 'dist/index.js'],
  ['packages/decisions', 'dist/index.js'],
  ['packages/mcp-http', 'dist/index.js'],
  ['services/decision-agent', 'dist/index.js'],
  ['services/inquiry', 'dist/index.js'],
  ['services/cli', 'dist/bin.js'],
] as const;

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/** True when some package's build is missing or older than its `src`. */
function buildIsStale(): boolean {
  return BUILT.some(([pkg, built]) => {
    const file = join(ROOT, pkg, built);
    return !existsSync(file) || statSync(file).mtimeMs < newestSource(join(ROOT, pkg, 'src'));
  });
}

/** `hitl decide` in its own process; resolves with its URL once it says where it listens. */
async function startDecide(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [BIN, 'decide'], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', HITL_SECRET: SECRET, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`hitl decide did not start: ${seen}`)), 15_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = seen.match(/at (http:\/\/\S+)/);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => reject(new Error(`hitl decide exited ${code}: ${seen}`)));
  });
  return { url, child };
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

const sizes = {
  question: 'Which shoe size?',
  options: ['41', '42', '43'],
  fallback: { onRefusal: 'agent' },
};

let llm: FakeChatModel;
let decide: { url: string; child: ChildProcess };
let stateDir: string;
beforeAll(async () => {
  // The decision agent runs from the built CLI: (re)build it and what it needs when any is stale.
  if (buildIsStale()) {
    await promisify(execFile)(
      'npx',
      ['turbo', 'run', 'build', '--filter=@hitl/cli...', '--output-logs=errors-only'],
      {
        cwd: ROOT,
        env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
      },
    );
  }
  llm = await startFakeChatModel();
  stateDir = await mkdtemp(join(tmpdir(), 'hitl-decide-'));
  decide = await startDecide({
    HITL_LLM_URL: llm.url,
    HITL_LLM_MODEL: 'remote-model',
    HITL_STATE_DIR: stateDir,
  });
}, 300_000);
afterAll(async () => {
  if (decide) await stop(decide.child);
  await llm?.close();
  if (stateDir) await rm(stateDir, { recursive: true, force: true });
});

describe.each(STORE_KINDS)(
  'the decision agent as its own process via HITL_DECISION_URL (%s store)',
  (kind) => {
    let t: TestNode;
    beforeAll(async () => {
      t = await startTestNode(kind, { ...SHORT_TIERS, HITL_SECRET: SECRET, HITL_DECISION_URL: decide.url });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('decides with the remote model, and the node audits it', async () => {
      llm.reply({
        content: { decision: 'answer', answer: '43', rationale: 'Size 43 fits best.', confidence: 0.75 },
      });
      const r = await refuse(t, sizes);
      expect(r.structured).toMatchObject({
        status: 'refused',
        answer: '43',
        resolvedBy: {
          kind: 'decision-agent',
          strategy: 'agent',
          rationale: 'Size 43 fits best.',
          trigger: 'refusal',
        },
      });
      const ops = await t.token('ops', 'ops');
      let items: DecisionRecord[] = [];
      await eventually(async () => {
        const page = await body<Page<DecisionRecord>>(
          await t.rest('/api/decisions?strategy=agent', { token: ops }),
        );
        items = page.items.filter((d) => d.inquiryId === r.structured.inquiryId);
        return items.length === 1;
      });
      expect(items[0]).toMatchObject({ model: 'remote-model', output: '43', decidedBy: 'decision-agent' });
      expect(items[0]?.latencyMs).toBeGreaterThan(0);
    });

    it('the gate holds across the wire: a critical approval is rejected', async () => {
      llm.reply({ content: { decision: 'approve', rationale: 'Fine by me.', confidence: 1 } });
      const r = await refuse(t, {
        question: 'May I wire 5000 EUR?',
        kind: 'approval',
        critical: true,
        action: { server: 'bank', tool: 'wire', arguments: { amount: 5000 } },
        fallback: { onRefusal: 'agent' },
      });
      expect(r.structured).toMatchObject({ answer: 'reject', resolvedBy: { strategy: 'fail_closed' } });
      expect(r.structured.resolvedBy?.rationale).toMatch(/critical/);
    });
  },
);

describe('when the decision agent is gone', () => {
  it('the node fails closed and says the agent is unreachable', async () => {
    const t = await startTestNode('memory', {
      ...SHORT_TIERS,
      HITL_SECRET: SECRET,
      HITL_DECISION_URL: decide.url,
    });
    try {
      await stop(decide.child);
      const r = await refuse(t, sizes);
      expect(r.structured).toMatchObject({ status: 'refused', resolvedBy: { strategy: 'fail_closed' } });
      expect(r.structured.answer).toBeUndefined();
      expect(r.structured.resolvedBy?.rationale).toMatch(/the decision agent is unreachable/);
    } finally {
      await t.close();
    }
  });
});
