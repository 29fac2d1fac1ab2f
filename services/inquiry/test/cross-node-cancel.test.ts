import { eventually } from '@hitl/store/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser } from './decision-helpers.js';
import { type NodePair, postMcp, startNodePair, type TestNode } from './harness.js';

const sendInquiry = (id: number, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'send_inquiry', arguments: args },
});

const cancelled = (requestId: number) => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason: 'user pressed stop' },
});

// The call is held on node a; its notifications/cancelled lands on node b, which finds the call's
// inquiry through the store: remembered by the create that made it, or by the hold of a call that
// re-attached to an inquiry made earlier.
describe('a cancel that lands on another node (two nodes on one Redis)', () => {
  let pair: NodePair;
  let a: TestNode;
  let b: TestNode;
  beforeAll(async () => {
    pair = await startNodePair();
    ({ a, b } = pair);
  });
  afterAll(() => pair?.close());

  it('cancels the inquiry of a call that created it', async () => {
    const user = newUser();
    const token = await a.token(user, 'agent');
    const device = await b.device(user, 'Phone');
    await device.synced;
    const call = await postMcp(a, token, sendInquiry(42, { question: 'Cancel me from elsewhere' }));
    const asked = await device.nextNew();
    expect((await postMcp(b, token, cancelled(42))).status).toBe(202);
    expect(await device.nextResolved()).toMatchObject({ inquiryId: asked.inquiryId, status: 'cancelled' });
    expect(await call.text()).toContain('"status":"cancelled"');
  });

  it('cancels the inquiry of a call that re-attached to it (same idempotency key)', async () => {
    const user = newUser();
    const token = await a.token(user, 'agent');
    const device = await b.device(user, 'Phone');
    await device.synced;
    const args = { question: 'Asked twice', idempotencyKey: `k-${user}` };
    const first = await postMcp(a, token, sendInquiry(7, args));
    const asked = await device.nextNew();
    const second = await postMcp(a, token, sendInquiry(8, args));
    // The second call holds the same inquiry; cancelling it from node b ends both calls. Nothing says
    // when its hold has left the reference, so the cancel is sent until it lands (one for a call the
    // store does not know changes nothing) and the inquiry reads cancelled.
    const resolved = device.nextResolved();
    const reader = await b.token(user, 'device');
    const status = async () =>
      (
        (await (await b.rest(`/api/inquiries/${asked.inquiryId}`, { token: reader })).json()) as {
          status: string;
        }
      ).status;
    await eventually(
      async () => {
        expect((await postMcp(b, token, cancelled(8))).status).toBe(202);
        return (await status()) === 'cancelled';
      },
      10_000,
      200,
    );
    expect(await resolved).toMatchObject({ inquiryId: asked.inquiryId, status: 'cancelled' });
    for (const call of [first, second]) expect(await call.text()).toContain('"status":"cancelled"');
  });
});
