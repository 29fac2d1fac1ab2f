import { describe, expect, it } from 'vitest';
import { type MakeStore, peerOf, sleep } from './fixtures.js';

/** Call references: how a cancel that reaches another node finds the inquiry a call waits on. */
export function callsContract(open: MakeStore): void {
  describe('call references', () => {
    it('finds the inquiry a call waits on from any instance, until the reference expires', async () => {
      const fixture = await open();
      const peer = await peerOf(fixture);
      await fixture.store.rememberCall('token-a\u0000number:7', 'inq-1', 300);
      expect(await peer.recallCall('token-a\u0000number:7')).toBe('inq-1');
      expect(await peer.recallCall('token-b\u0000number:7')).toBeNull();
      await sleep(400);
      expect(await fixture.store.recallCall('token-a\u0000number:7')).toBeNull();
    });
  });
}
