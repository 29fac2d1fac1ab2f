import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectDevice, type TestDevice } from '@hitl/inquiry/testing';
import type { DeviceAck, InquiryResult } from '@hitl/protocol';
import { startRedisServer, type TestRedisServer } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, mcpClient, type NodeProcess, spawnNode, token } from './node-process.js';

const TAP = fileURLToPath(new URL('./redis-tap.mjs', import.meta.url));

/** What one node received from Redis (pub/sub deliveries), as `redis-tap.mjs` wrote it down. */
function heard(file: string): { channel: string; payload: string }[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

/**
 * Issue 22: four nodes on one Redis; a user's device is on node A and their agent's held call on
 * node B. Nodes C and D hold nothing of that user, and must hear nothing of it: neither its device
 * events (`inquiry:new`, `inquiry:resolved`) nor its resolution.
 */
describe('four nodes on one Redis: a node hears only its own users', () => {
  let redis: TestRedisServer;
  let nodes: NodeProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'hitl-tap-'));
  const taps = [0, 1, 2, 3].map((i) => join(dir, `node-${i}.jsonl`));
  const devices: TestDevice[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
    nodes = await Promise.all(
      taps.map((tap) =>
        spawnNode({ REDIS_URL: redis.url, HITL_TEST_REDIS_TAP: tap, NODE_OPTIONS: `--import ${TAP}` }),
      ),
    );
  }, 60_000);
  afterAll(async () => {
    for (const device of devices) device.socket.disconnect();
    await Promise.all(nodes.map((node) => node.kill('SIGKILL')));
    await redis?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const url = (i: number) => (nodes[i] as NodeProcess).url;

  /** One full cycle for `user`: the call held on node `callOn`, answered by the device on `deviceOn`. */
  async function cycle(user: string, callOn: number, deviceOn: number, question: string) {
    const device = await connectDevice(url(deviceOn), await token(user, 'device'), 'phone');
    devices.push(device);
    await device.synced;
    const client = await mcpClient(url(callOn), user);
    const call = client.callTool({ name: 'send_inquiry', arguments: { question } }, undefined, {
      timeout: 30_000,
    });
    const asked = await device.nextNew();
    const ack = await device.emit<DeviceAck>('inquiry:answer', {
      inquiryId: asked.inquiryId,
      response: 'yes',
    });
    expect(ack.ok).toBe(true);
    const result = (await call).structuredContent as InquiryResult;
    expect(result).toMatchObject({ inquiryId: asked.inquiryId, status: 'answered', answer: 'yes' });
    expect((await device.nextResolved()).inquiryId).toBe(asked.inquiryId);
    await client.close();
    return asked.inquiryId;
  }

  it("nodes without the user's device or call receive none of its events and none of its resolutions", async () => {
    const solo = 'scale-solo';
    const soloId = await cycle(solo, 1, 0, 'solo question');
    // Node C serves a user of its own meanwhile (so it is not simply idle).
    const localId = await cycle('scale-local', 2, 2, 'local question');
    const mentions = (file: string, marks: string[]) =>
      heard(file).filter((m) => marks.some((mark) => m.channel.includes(mark) || m.payload.includes(mark)));
    const soloMarks = [soloId, `user:${solo}`];
    /** Resolution messages about `id` on node channels (`<prefix>node:{n:<tag>}`, `<id> {...}`). */
    const resolutions = (file: string, id: string) =>
      heard(file).filter((m) => m.channel.includes('node:{n:') && m.payload.startsWith(`${id} `));
    // The premise: the taps see traffic, and the two nodes that hold the user's parts heard of it.
    await eventually(() => mentions(taps[0] as string, [`user:${solo}#`]).length >= 1);
    // Node B (the call) created the inquiry, so it was listed as a waiter from the start: it hears
    // the resolution exactly once, on its own channel.
    await eventually(() => resolutions(taps[1] as string, soloId).length >= 1);
    expect(mentions(taps[1] as string, [soloId])).toHaveLength(1);
    // Node A (the device) gets no resolution message (it resolved it itself), node B (the call) no
    // device event (no socket of the user there).
    expect(resolutions(taps[0] as string, soloId)).toEqual([]);
    expect(mentions(taps[1] as string, [`user:${solo}#`])).toEqual([]);
    // Node C's own user has the device and the call on C: its room emits stay on C (nobody else
    // subscribes that room, so nothing is published) and so does the resolution (the resolving
    // node's own waiters wake from the script's reply): C hears nothing of it at all.
    expect(mentions(taps[2] as string, [localId, 'user:scale-local#'])).toEqual([]);
    // Nodes C and D: nothing of the user's at all.
    expect(mentions(taps[2] as string, soloMarks)).toEqual([]);
    expect(mentions(taps[3] as string, soloMarks)).toEqual([]);
    expect(mentions(taps[3] as string, [localId, 'scale-local'])).toEqual([]);
  });
});
