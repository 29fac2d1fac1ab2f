import { describe, expect, it } from 'vitest';
import { type MakeStore, peerOf, sampleInquiry, sleep } from './fixtures.js';

/** Call references: how a cancel that reaches another node finds the inquiry a call waits on. */
export function callsContract(open: MakeStore): void {
  describe('call references', () => {
    it('finds the inquiry a call waits on from any instance, until the reference expires', async () => {
      const fixture = await open();
      const peer = await peerOf(fixture);
      await fixture.store.rememberCall('token-a\u0000number:7', 'inq-1', 300);
      expect(await peer.recallCall('token-a\u0000number:7')).toBe('inq-1');
      expect(await peer.recallCall('token-b\u0000number:7')).toBeNull();
      // time itself is under test: the 300 ms reference expires.
      await sleep(400);
      expect(await fixture.store.recallCall('token-a\u0000number:7')).toBeNull();
    });

    it('remembers the call a create names, with the inquiry it creates, and only then', async () => {
      const fixture = await open();
      const peer = await peerOf(fixture);
      const first = sampleInquiry({ idempotencyKey: 'ask-once' });
      const created = await fixture.store.create(first, {
        call: { key: 'token-a\u0000number:8', ttlMs: 300 },
      });
      expect(created).toMatchObject({ kind: 'ok', created: true });
      expect(await peer.recallCall('token-a\u0000number:8')).toBe(first.inquiryId);
      // A re-attach (the key names the inquiry already) creates nothing and remembers nothing: the
      // caller remembers its own call.
      const again = await fixture.store.create(sampleInquiry({ idempotencyKey: 'ask-once' }), {
        call: { key: 'token-a\u0000number:9', ttlMs: 300 },
      });
      expect(again).toMatchObject({ kind: 'ok', created: false, inquiry: { inquiryId: first.inquiryId } });
      expect(await peer.recallCall('token-a\u0000number:9')).toBeNull();
      // Nor does a create refused by the cap.
      const refused = await fixture.store.create(sampleInquiry(), {
        maxPendingPerUser: 1,
        call: { key: 'token-a\u0000number:10', ttlMs: 300 },
      });
      expect(refused).toMatchObject({ kind: 'limit' });
      expect(await peer.recallCall('token-a\u0000number:10')).toBeNull();
      // time itself is under test: the 300 ms reference expires.
      await sleep(400);
      expect(await fixture.store.recallCall('token-a\u0000number:8')).toBeNull();
    });
  });
}
