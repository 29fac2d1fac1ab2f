import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mcpClient, type NodeProcess, spawnNode } from '../node-process.js';

/**
 * Issue 34 item 9: a team's `askers` cannot be bypassed by naming its members. An agent may address
 * user X with `{users}` only when X is its own user or in some team whose askers (default: its
 * members) include the agent's user; otherwise invalid input naming `audience`.
 */
const DIRECTORY = {
  users: { alice: {}, bob: {}, carol: {}, loner: {} },
  teams: {
    t1: { members: ['alice', 'bob'], askers: ['boss'] },
    crew: { members: ['carol', 'mallory'] },
  },
};

/** The text of a refused call, whether the SDK threw a JSON-RPC error or returned an isError result. */
async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    const result = (await call) as { isError?: boolean; content?: { text?: string }[] };
    return result.isError ? (result.content?.map((c) => c.text ?? '').join(' ') ?? '') : 'not refused';
  } catch (error) {
    return (error as Error).message;
  }
}

describe('security: {users} may name only people the agent’s user may ask', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-askers-'));
  let node: NodeProcess;
  const clients: Client[] = [];
  beforeAll(async () => {
    const file = join(dir, 'directory.json');
    writeFileSync(file, JSON.stringify(DIRECTORY));
    node = await spawnNode({ HITL_DIRECTORY_FILE: file });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await node?.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  const agent = async (user: string) => {
    const client = await mcpClient(node.url, user);
    clients.push(client);
    return client;
  };
  /** A question with a one-second window: an accepted audience ends `timed_out`, a refused one throws. */
  const ask = (client: Client, args: Record<string, unknown>) =>
    client.callTool(
      { name: 'send_inquiry', arguments: { question: 'Allowed?', timeoutMs: 1000, ...args } },
      undefined,
      { timeout: 30_000 },
    );

  it('an agent refused for {team} is refused for the same people as {users}, with or without a quorum', async () => {
    const mallory = await agent('mallory');
    expect(await refusal(ask(mallory, { audience: { team: 't1' } }))).toMatch(/audience/);
    expect(
      await refusal(ask(mallory, { kind: 'approval', audience: { users: ['alice', 'bob'] }, quorum: 2 })),
    ).toMatch(/audience.*"alice", "bob"/);
    expect(await refusal(ask(mallory, { audience: { users: ['alice'] } }))).toMatch(/audience.*"alice"/);
    // Known to the directory but in no team mallory may ask.
    expect(await refusal(ask(mallory, { audience: { users: ['loner'] } }))).toMatch(/audience.*"loner"/);
  });

  it('a member of a team asks its teammates; anyone asks themself; an asker reaches the members', async () => {
    const mallory = await agent('mallory');
    // crew has no askers: its members may ask it, so mallory may name carol (and themself).
    expect(
      (await ask(mallory, { audience: { users: ['carol', 'mallory'] } })).structuredContent,
    ).toMatchObject({ status: 'timed_out' });
    const loner = await agent('loner');
    expect((await ask(loner, { audience: { users: ['loner'] } })).structuredContent).toMatchObject({
      status: 'timed_out',
    });
    const boss = await agent('boss');
    expect(
      (await ask(boss, { kind: 'approval', audience: { users: ['alice', 'bob'] }, quorum: 2 }))
        .structuredContent,
    ).toMatchObject({ status: 'timed_out' });
    // alice is in t1, but t1's askers are [boss] only: alice may not name bob through it.
    const alice = await agent('alice');
    expect(await refusal(ask(alice, { audience: { users: ['bob'] } }))).toMatch(/audience.*"bob"/);
  });
});
