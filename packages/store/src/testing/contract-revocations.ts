import { afterEach, describe, expect, it } from 'vitest';
import { isRevoked, type RevocationStore } from '../revocations/revocations.js';
import { eventually } from './fixtures.js';

/** Two handles on one backend (two nodes' views of Redis; one object twice in memory). */
export interface RevocationFixture {
  writer: RevocationStore;
  reader: RevocationStore;
  cleanup(): Promise<void>;
}

export type MakeRevocations = (nowSec: () => number) => Promise<RevocationFixture>;

/**
 * The behaviour every `RevocationStore` must show, as a vitest suite.
 * @example
 * runRevocationContract('memory', async (nowSec) => {
 *   const store = new MemoryRevocationStore(nowSec);
 *   return { writer: store, reader: store, cleanup: () => store.close() };
 * });
 */
export function runRevocationContract(name: string, make: MakeRevocations): void {
  describe(`RevocationStore contract: ${name}`, () => {
    const opened: RevocationFixture[] = [];
    let now = 1_800_000_000;
    const open = async () => {
      const fixture = await make(() => now);
      opened.push(fixture);
      await Promise.all([fixture.writer.ready(), fixture.reader.ready()]);
      return fixture;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((fixture) => fixture.cleanup()));
    });

    it('a revoked jti is refused; other tokens of the same user are not', async () => {
      const { writer, reader } = await open();
      await writer.revokeToken('jti-1', now + 3600);
      const list = await reader.list();
      expect(isRevoked(list, { sub: 'u', jti: 'jti-1', iat: now })).toBe(true);
      expect(isRevoked(list, { sub: 'u', jti: 'jti-2', iat: now })).toBe(false);
    });

    it("a user's revocation covers tokens issued up to and in its second, not later ones or other users", async () => {
      const { writer, reader } = await open();
      await writer.revokeUser('u', now);
      const list = await reader.list();
      expect(isRevoked(list, { sub: 'u', jti: 'a', iat: now - 10 })).toBe(true);
      expect(isRevoked(list, { sub: 'u', jti: 'b', iat: now })).toBe(true);
      expect(isRevoked(list, { sub: 'u', iat: now + 1 })).toBe(false);
      expect(isRevoked(list, { sub: 'u' })).toBe(true);
      expect(isRevoked(list, { sub: 'v', iat: now - 10 })).toBe(false);
    });

    it('an earlier cutoff never shortens a later one', async () => {
      const { writer, reader } = await open();
      await writer.revokeUser('u', now);
      await writer.revokeUser('u', now - 100);
      expect(isRevoked(await reader.list(), { sub: 'u', iat: now - 50 })).toBe(true);
    });

    it('entries of tokens that expired anyway drop out of the list', async () => {
      const { writer, reader } = await open();
      await writer.revokeToken('short', now + 10);
      await writer.revokeToken('forever');
      now += 11;
      const list = await reader.list();
      expect([...list.tokens.keys()]).toEqual(['forever']);
    });

    it('every handle hears of a revocation made through another', async () => {
      const { writer, reader } = await open();
      let heard = 0;
      reader.onChange(() => {
        heard += 1;
      });
      await writer.revokeToken('jti-heard');
      await eventually(() => heard > 0, 2000);
      expect((await reader.list()).tokens.has('jti-heard')).toBe(true);
    });
  });
}
