import type { AuditRecordsPage } from '@hitl/protocol';
import { eventually } from '@hitl/store/testing';
import { describe, expect, it } from 'vitest';
import { connectDevice, ledgerBackend, scratchDir, startTestProxy, startWorld } from './harness.js';

const dir = scratchDir('proxy-chain-');

describe.each(['memory', 'redis'] as const)(
  "a proxy's grants and runs in the node's audit chain (%s)",
  (kind) => {
    it('an approved call that ran is one chain record naming the inquiry, the tool and the digest', async () => {
      const world = await startWorld(kind);
      const ledger = await ledgerBackend(dir());
      const t = await startTestProxy(world, ledger.spec, { mode: 'gated' }, {}, { defaultAudit: true });
      try {
        const device = await connectDevice(world, 'gus');
        const agent = await t.agent('gus');
        const call = agent.callTool({ name: 'charge', arguments: { amount: 7 } });
        const inquiry = await device.nextInquiry();
        await device.answer(inquiry.inquiryId, 'approve');
        await call;
        const ops = await world.node.tokens.sign({ sub: 'ops', role: 'ops' });
        const records = async () =>
          (
            (await (
              await fetch(`${world.node.url}/api/audit/records?limit=1000`, {
                headers: { authorization: `Bearer ${ops}` },
              })
            ).json()) as AuditRecordsPage
          ).items.map((e) => e.record);
        // The node's own record of the answer, and (appended by the proxy after it ran) the proxy's.
        await eventually(async () => (await records()).some((r) => r.type === 'proxy.approved'), 5000);
        const all = await records();
        expect(all.filter((r) => r.inquiryId === inquiry.inquiryId).map((r) => r.type)).toEqual([
          'answer',
          'proxy.approved',
        ]);
        expect(all.find((r) => r.type === 'proxy.approved')).toMatchObject({
          id: `proxy:${inquiry.inquiryId}:approved`,
          tool: 'charge',
          userId: 'gus',
          digest: expect.stringMatching(/^[0-9a-f]{64}$/),
        });
        // A record from outside must be a proxy's.
        const forged = await fetch(`${world.node.url}/api/audit/records`, {
          method: 'POST',
          headers: { authorization: `Bearer ${ops}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            records: [{ id: `inquiry:${inquiry.inquiryId}:end`, type: 'answer', at: 1 }],
          }),
        });
        expect(forged.status).toBe(400);
        device.socket.disconnect();
      } finally {
        await t.close();
        await world.close();
      }
    });
  },
);
