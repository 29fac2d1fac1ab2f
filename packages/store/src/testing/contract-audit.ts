import { type AuditRecord, GENESIS_HASH, type Vote } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import type { AuditChainStore } from '../audit/audit-chain.js';
import { verifyChain } from '../audit/chain-verify.js';
import type { InquiryStore } from '../store.js';
import { answered, createNew, openFixtures, timedOut } from './fixtures.js';

/** One node's view of a chain: the chain and an inquiry store whose steps write to its outbox. */
export interface AuditNode {
  chain: AuditChainStore;
  store: InquiryStore;
}

/** What a contract run gets: a fresh, isolated chain. */
export interface AuditFixture extends AuditNode {
  /** Another node on the same data (its own connections); absent for a single-node chain. */
  peer?: () => Promise<AuditNode>;
  cleanup(): Promise<void>;
}

export type MakeAudit = () => Promise<AuditFixture>;

/** A record of `type` with a fresh id. */
export function auditRecord(n: number, extra: Record<string, unknown> = {}): AuditRecord {
  return {
    id: `test:${n}:${Math.random().toString(36).slice(2)}`,
    type: 'test',
    at: Date.now(),
    n,
    ...extra,
  };
}

async function everything(chain: AuditChainStore) {
  return chain.read(0, 10_000);
}

/**
 * The behaviour every `AuditChainStore` must show: one gap-free chain whose hashes verify, each record
 * once, and a decision's record written by the decision's own store step (exactly when it wins),
 * found again by `drainOutbox` when nobody appended it.
 */
export function runAuditContract(name: string, make: MakeAudit): void {
  describe(`AuditChainStore contract: ${name}`, () => {
    const open = openFixtures(make);

    it('chains entries from seq 1 and 64 zeros, each hash over the one before, and pages them', async () => {
      const { chain } = await open();
      expect(await chain.head()).toEqual({ seq: 0, hash: GENESIS_HASH });
      const added = await chain.append([auditRecord(1), auditRecord(2), auditRecord(3)]);
      expect(added.map((e) => e.seq)).toEqual([1, 2, 3]);
      expect(added[0]?.prevHash).toBe(GENESIS_HASH);
      const all = await everything(chain);
      expect(all).toEqual(added);
      expect(verifyChain(all)).toEqual({ ok: true, count: 3 });
      expect(await chain.head()).toEqual({ seq: 3, hash: added[2]?.hash });
      expect((await chain.read(1, 1)).map((e) => e.seq)).toEqual([2]);
      expect(await chain.read(3, 10)).toEqual([]);
    });

    it('appends a record id once, however often it is given', async () => {
      const { chain } = await open();
      const record = auditRecord(1);
      expect(await chain.append([record, record])).toHaveLength(1);
      expect(await chain.append([record])).toEqual([]);
      await chain.stage([record]);
      expect(await chain.drainOutbox(0)).toBe(0);
      expect((await everything(chain)).map((e) => e.record.id)).toEqual([record.id]);
    });

    it('concurrent appends, also from another node, make one chain with no gap', async () => {
      const fixture = await open();
      const other = fixture.peer ? (await fixture.peer()).chain : fixture.chain;
      const records = Array.from({ length: 60 }, (_, i) => auditRecord(i));
      await Promise.all(records.map((record, i) => (i % 2 ? other : fixture.chain).append([record])));
      const all = await everything(fixture.chain);
      expect(all.map((e) => e.seq)).toEqual(records.map((_, i) => i + 1));
      expect(new Set(all.map((e) => e.record.id))).toEqual(new Set(records.map((r) => r.id)));
      expect(verifyChain(all)).toEqual({ ok: true, count: 60 });
    });

    it("a resolve's record is written by its own step when it wins, and drained when nobody appended it", async () => {
      const fixture = await open();
      const peer = fixture.peer ? await fixture.peer() : fixture;
      const inquiry = await createNew(fixture.store);
      const win = { id: `inquiry:${inquiry.inquiryId}:end`, type: 'answer', at: Date.now() };
      const lose = { id: `inquiry:${inquiry.inquiryId}:end-2`, type: 'timeout', at: Date.now() };
      expect(
        await fixture.store.resolve(inquiry.inquiryId, answered('M'), undefined, undefined, { record: win }),
      ).toMatchObject({ kind: 'won' });
      expect(
        await peer.store.resolve(inquiry.inquiryId, timedOut(), undefined, undefined, { record: lose }),
      ).toMatchObject({ kind: 'lost' });
      // The node "died" before appending: a drain (on any node) finds the winner's record, never the loser's.
      expect(await peer.chain.drainOutbox(0)).toBe(1);
      expect(await fixture.chain.drainOutbox(0)).toBe(0);
      expect((await everything(fixture.chain)).map((e) => e.record)).toEqual([win]);
      // The appender that comes late changes nothing.
      expect(await fixture.chain.append([win])).toEqual([]);
    });

    it('a vote writes its record when kept, the ending too when it decides; an escalation its own', async () => {
      const { chain, store } = await open();
      const inquiry = await createNew(store, {
        kind: 'approval',
        options: undefined,
        quorum: 2,
        audience: ['ann', 'bob', 'cat'],
        escalation: { at: Date.now(), users: ['dan'] },
      });
      const id = inquiry.inquiryId;
      const escalation = { id: `inquiry:${id}:escalation`, type: 'escalation', at: Date.now() };
      expect(await store.escalate(id, Date.now(), { record: escalation })).not.toBeNull();
      expect(await store.escalate(id, Date.now(), { record: { ...escalation, id: 'again' } })).toBeNull();
      const vote = (userId: string): Vote => ({ userId, vote: 'approve', at: Date.now() });
      const audit = (userId: string) => ({
        record: { id: `inquiry:${id}:vote:${userId}`, type: 'vote', at: Date.now() },
        end: { id: `inquiry:${id}:end`, type: 'answer', at: Date.now() },
      });
      const decides = answered('approve');
      expect(await store.vote(id, vote('ann'), decides, audit('ann'))).toMatchObject({ kind: 'counted' });
      expect(await store.vote(id, vote('ann'), decides, audit('ann'))).toMatchObject({
        kind: 'already_voted',
      });
      expect(await chain.drainOutbox(0)).toBe(2);
      expect(await store.vote(id, vote('bob'), decides, audit('bob'))).toMatchObject({ kind: 'won' });
      expect(await store.vote(id, vote('cat'), decides, audit('cat'))).toMatchObject({ kind: 'lost' });
      expect(await chain.drainOutbox(0)).toBe(2);
      // A drain appends what it finds in no particular order: each drain's records, as sets.
      const ids = (await everything(chain)).map((e) => e.record.id);
      expect(new Set(ids.slice(0, 2))).toEqual(new Set([escalation.id, `inquiry:${id}:vote:ann`]));
      expect(new Set(ids.slice(2))).toEqual(new Set([`inquiry:${id}:vote:bob`, `inquiry:${id}:end`]));
    });

    it('a staged record waits in the outbox until appended or drained', async () => {
      const { chain } = await open();
      const staged = auditRecord(7);
      await chain.stage([staged]);
      expect(await everything(chain)).toEqual([]);
      expect(await chain.drainOutbox(0)).toBe(1);
      expect(await chain.drainOutbox(0)).toBe(0);
      expect((await everything(chain)).map((e) => e.record)).toEqual([staged]);
    });
  });
}
