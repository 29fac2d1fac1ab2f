import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TokenService } from '@hitl/auth';
import { loadConfig } from '@hitl/inquiry';
import { createProxyLogger, parsePolicy, startProxy } from '@hitl/mcp-proxy';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { newHist, prefixed, recordMs, summarize } from '../core/hist.js';
import type { Fields } from '../core/summary.js';
import { BENCH_SECRET, startNode as startNodeProcess } from '../env/nodes.js';
import { param, type ScenarioContext } from './context.js';

const ECHO = fileURLToPath(new URL('../load/echo-backend.js', import.meta.url));

/**
 * What a call covered by a standing approval costs, against an unguarded pass-through of the same
 * backend work and the standing check alone. A real node (its own process, memory store) and a real
 * `hitl proxy` (this process) in front of a stdio MCP server; one call in flight, the three kinds
 * interleaved. The standing approval is made the way a person makes it (an approve with `allowFor`);
 * every covered call must be counted on it and no person asked. Figures: `pass` (a read-only tool,
 * unguarded), `covered` (a destructive tool under the standing approval), `check` and `direct` (the
 * node's `use` from here: a bare fetch, and the proxy's own check function), `gate_check` (that check
 * timed inside the covered calls). Goal: covered p50 ≤ pass p50 + gate_check p50: the gate adds one
 * store read (over HTTP to the node) and nothing else that shows.
 */
export async function standing(ctx: ScenarioContext): Promise<Fields> {
  const samples = param(ctx, 'samples', { quick: 200, full: 3000 });
  const warmup = param(ctx, 'warmup', { quick: 50, full: 300 });
  const stateDir = await mkdtemp(join(tmpdir(), 'bench-standing-'));
  ctx.cleanup.add(() => rm(stateDir, { recursive: true, force: true }));
  // No rate limit: the run makes thousands of calls a minute on one token.
  const env = {
    PORT: '0',
    HITL_SECRET: BENCH_SECRET,
    HITL_STATE_DIR: stateDir,
    HITL_STORE: 'memory',
    LOG_LEVEL: 'silent',
    HITL_RATE_PER_MIN: '0',
  };
  // The node in its own process, as in production; the proxy in this one.
  const node = await startNodeProcess(0, { env: { HITL_RATE_PER_MIN: '0' } });
  ctx.cleanup.add(() => node.stop());
  const tokens = new TokenService(BENCH_SECRET);
  const proxy = await startProxy({
    backend: { kind: 'command', command: `node ${ECHO}`, name: 'echo' },
    policy: parsePolicy({ mode: 'gated' }),
    inquiryUrl: node.url,
    config: loadConfig(env),
    logger: createProxyLogger('silent', true),
  });
  ctx.cleanup.add(() => proxy.close());
  // The gate's own question, timed where the proxy asks it.
  const inProxy = newHist();
  const asked = proxy.core.calls.standing;
  let measuring = false;
  if (asked) {
    proxy.core.calls.standing = {
      use: async (userId, call) => {
        const started = performance.now();
        const found = await asked.use(userId, call);
        if (measuring) recordMs(inProxy, performance.now() - started);
        return found;
      },
    };
  }
  const agentToken = await tokens.sign({ sub: 'bench', role: 'agent' });
  const deviceToken = await tokens.sign({ sub: 'bench', role: 'device' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${proxy.url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${agentToken}` } },
    }),
  );
  ctx.cleanup.add(() => client.close());

  await allowTouch(node.url, deviceToken, client);
  const call = (name: string) => client.callTool({ name, arguments: { n: 1 } });
  const check = () =>
    fetch(`${node.url}/api/approvals/standing/use`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ server: 'echo', tool: 'touch', arguments: { n: 1 } }),
    }).then(async (r) => {
      await r.text();
      if (r.status !== 200) throw new Error(`standing check answered ${r.status}`);
    });
  ctx.log(`standing: ${samples} calls each (one in flight), after ${warmup} warm-up`);
  // Interleaved, in a rotating order, so a slow stretch of the machine (and whatever one call leaves
  // behind for the next) hits every kind alike.
  const direct = () =>
    asked?.use('bench', { server: 'echo', tool: 'touch', arguments: { n: 1 } }) ?? Promise.resolve(null);
  const kinds = { pass: () => call('look'), covered: () => call('touch'), check, direct };
  const hists = { pass: newHist(), covered: newHist(), check: newHist(), direct: newHist() };
  const order = Object.entries(kinds) as [keyof typeof kinds, () => Promise<unknown>][];
  for (let i = 0; i < warmup + samples; i++) {
    for (const [kind, run] of [...order.slice(i % order.length), ...order.slice(0, i % order.length)]) {
      const started = performance.now();
      await run();
      if (i >= warmup) recordMs(hists[kind], performance.now() - started);
      measuring = i + 1 >= warmup;
    }
  }
  const uses = await standingUses(node.url, deviceToken);
  const waiting = await pendingCount(node.url, deviceToken);
  // Every covered call and every check (from here and as the gate asks it) is one use; nobody was asked.
  const faults = (uses === 3 * (warmup + samples) ? 0 : 1) + (waiting === 0 ? 0 : 1);
  const pass = summarize(hists.pass);
  const covered = summarize(hists.covered);
  const read = summarize(hists.check);
  const gateCheck = summarize(inProxy);
  return {
    ...prefixed('pass', pass),
    ...prefixed('covered', covered),
    ...prefixed('check', read),
    ...prefixed('gate_check', gateCheck),
    ...prefixed('direct', summarize(hists.direct)),
    extra_p50_ms: Math.round((covered.p50_ms - pass.p50_ms) * 1000) / 1000,
    // The one store read the gate adds is its question to the node, timed where the gate asks it.
    goal: covered.p50_ms <= pass.p50_ms + gateCheck.p50_ms ? 'met' : 'missed',
    uses,
    faults,
    ok: faults === 0,
  };
}

/** Calls `touch` once and approves it "for 60 minutes" as the person would, over REST. */
async function allowTouch(url: string, deviceToken: string, client: Client): Promise<void> {
  const first = client.callTool({ name: 'touch', arguments: { n: 0 } });
  const headers = { Authorization: `Bearer ${deviceToken}`, 'content-type': 'application/json' };
  let inquiryId: string | undefined;
  for (let tries = 0; !inquiryId && tries < 500; tries++) {
    const page = (await (await fetch(`${url}/api/inquiries?status=pending`, { headers })).json()) as {
      items: { inquiryId: string }[];
    };
    inquiryId = page.items[0]?.inquiryId;
    if (!inquiryId) await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (!inquiryId) throw new Error('the first touch was never put to a person');
  const answered = await fetch(`${url}/api/inquiries/${inquiryId}/answer`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ response: 'approve', allowFor: { minutes: 60 } }),
  });
  if (answered.status !== 200) throw new Error(`the approve answered ${answered.status}`);
  await first;
}

async function standingUses(url: string, deviceToken: string): Promise<number> {
  const response = await fetch(`${url}/api/approvals/standing`, {
    headers: { Authorization: `Bearer ${deviceToken}` },
  });
  const { items } = (await response.json()) as { items: { uses: number }[] };
  return items[0]?.uses ?? -1;
}

async function pendingCount(url: string, deviceToken: string): Promise<number> {
  const response = await fetch(`${url}/api/inquiries?status=pending`, {
    headers: { Authorization: `Bearer ${deviceToken}` },
  });
  return ((await response.json()) as { items: unknown[] }).items.length;
}
