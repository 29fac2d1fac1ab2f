import type { Inquiry, Resolution, Vote } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import type { InquiryStore } from '../store.js';
import { createNew, eventually, type MakeStore, peerOf } from './fixtures.js';

/** A quorum approval for `user-a`'s agent, addressed to five people. */
function approvalOf(quorum: number) {
  return {
    kind: 'approval' as const,
    options: undefined,
    quorum,
    audience: ['ann', 'bob', 'cat', 'dan', 'eve'],
  };
}

function voteOf(userId: string, vote: Vote['vote']): Vote {
  return { userId, deviceName: `${userId}'s phone`, vote, at: Date.now() };
}

/** The resolution a vote writes when it decides. */
function decidedBy(vote: Vote): Resolution {
  return {
    status: 'answered',
    answer: vote.vote,
    resolvedBy: { kind: 'human', userId: vote.userId, deviceName: vote.deviceName },
    resolvedAt: vote.at,
  };
}

function cast(store: InquiryStore, inquiryId: string, userId: string, choice: Vote['vote']) {
  const vote = voteOf(userId, choice);
  return store.vote(inquiryId, vote, decidedBy(vote));
}

/** Quorum votes and escalations: what changes on a pending inquiry, each one atomic step. */
export function progressContract(open: MakeStore): void {
  describe('quorum votes', () => {
    it('counts approvals until the quorum, then approves with every vote kept; later votes lose', async () => {
      const fixture = await open();
      const { store } = fixture;
      const peer = await peerOf(fixture);
      const inquiry = await createNew(store, approvalOf(2));
      const first = await cast(store, inquiry.inquiryId, 'ann', 'approve');
      expect(first).toMatchObject({ kind: 'counted', inquiry: { status: 'pending' } });
      expect(first.kind !== 'not_found' && first.inquiry.votes?.map((v) => v.userId)).toEqual(['ann']);
      expect((await peer.get(inquiry.inquiryId))?.votes).toHaveLength(1);
      const again = await cast(peer, inquiry.inquiryId, 'ann', 'reject');
      expect(again).toMatchObject({ kind: 'already_voted', inquiry: { status: 'pending' } });
      const second = await cast(peer, inquiry.inquiryId, 'bob', 'approve');
      expect(second).toMatchObject({
        kind: 'won',
        inquiry: { status: 'answered', answer: 'approve', resolvedBy: { kind: 'human', userId: 'bob' } },
      });
      const stored = await store.get(inquiry.inquiryId);
      expect(stored?.votes?.map((v) => [v.userId, v.vote])).toEqual([
        ['ann', 'approve'],
        ['bob', 'approve'],
      ]);
      expect(await cast(store, inquiry.inquiryId, 'cat', 'reject')).toMatchObject({
        kind: 'lost',
        inquiry: { answer: 'approve' },
      });
      expect(await store.countPending('ann')).toBe(0);
    });

    it('ends with one reject (a veto), after an approval', async () => {
      const { store } = await open();
      const inquiry = await createNew(store, approvalOf(3));
      await cast(store, inquiry.inquiryId, 'ann', 'approve');
      const veto = await cast(store, inquiry.inquiryId, 'bob', 'reject');
      expect(veto).toMatchObject({ kind: 'won', inquiry: { status: 'answered', answer: 'reject' } });
      expect(veto.kind !== 'not_found' && veto.inquiry.votes).toHaveLength(2);
    });

    it('tells every instance of a deciding vote once, votes included', async () => {
      const fixture = await open();
      const peer = await peerOf(fixture);
      const heard: Inquiry[] = [];
      const off = peer.onResolved((inquiry) => heard.push(inquiry));
      const inquiry = await createNew(fixture.store, approvalOf(2));
      const waiting = peer.waitForResolution(inquiry.inquiryId, { deadline: Date.now() + 5000 });
      await cast(fixture.store, inquiry.inquiryId, 'ann', 'approve');
      await cast(fixture.store, inquiry.inquiryId, 'bob', 'approve');
      expect((await waiting)?.votes).toHaveLength(2);
      await eventually(() => heard.length === 1);
      expect(heard[0]).toMatchObject({ answer: 'approve', votes: [{ userId: 'ann' }, { userId: 'bob' }] });
      off();
    });

    it('decides each of 100 quorum approvals exactly right under racing votes from two instances', async () => {
      const fixture = await open();
      const stores = [fixture.store, await peerOf(fixture)];
      const inquiries = await Promise.all(
        Array.from({ length: 100 }, () => createNew(fixture.store, approvalOf(2))),
      );
      // Odd inquiries get a reject among the votes; every voter tries twice, from both instances.
      const plans = inquiries.map((inquiry, i) => ({
        inquiry,
        votes: [
          ['ann', 'approve'],
          ['bob', i % 2 === 1 ? 'reject' : 'approve'],
          ['cat', 'approve'],
        ] as [string, Vote['vote']][],
      }));
      const results = await Promise.all(
        plans.flatMap(({ inquiry, votes }) =>
          votes.flatMap(([userId, choice], j) =>
            [0, 1].map(async (k) => ({
              inquiryId: inquiry.inquiryId,
              result: await cast(stores[(j + k) % 2]!, inquiry.inquiryId, userId, choice),
            })),
          ),
        ),
      );
      for (const { inquiry } of plans) {
        const mine = results.filter((r) => r.inquiryId === inquiry.inquiryId).map((r) => r.result);
        expect(mine.filter((r) => r.kind === 'won')).toHaveLength(1);
        const ended = await fixture.store.get(inquiry.inquiryId);
        const votes = ended?.votes ?? [];
        // One vote per user, never more.
        expect(new Set(votes.map((v) => v.userId)).size).toBe(votes.length);
        // The outcome follows the votes that were counted, in order.
        const firstReject = votes.findIndex((v) => v.vote === 'reject');
        const approvalsBefore = votes.slice(0, firstReject === -1 ? votes.length : firstReject).length;
        const expected = firstReject !== -1 && approvalsBefore < 2 ? 'reject' : 'approve';
        expect(ended).toMatchObject({ status: 'answered', answer: expected });
        // Nothing was counted after the deciding vote.
        expect(votes.length).toBe(expected === 'reject' ? firstReject + 1 : 2);
      }
    });

    it('answers not_found for an unknown inquiry', async () => {
      const { store } = await open();
      expect(await cast(store, '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'ann', 'approve')).toEqual({
        kind: 'not_found',
      });
    });
  });

  describe('escalation', () => {
    it('adds the escalation users once, lists the inquiry for them, and leaves the due list', async () => {
      const fixture = await open();
      const { store } = fixture;
      const peer = await peerOf(fixture);
      const at = Date.now() - 10;
      const inquiry = await createNew(store, {
        audience: ['ann'],
        escalation: { at, users: ['zed'], team: 'oncall' },
      });
      const later = await createNew(store, {
        audience: ['ann'],
        escalation: { at: Date.now() + 60_000, users: ['zed'] },
      });
      expect(await store.listDueEscalations(Date.now(), 10)).toEqual([inquiry.inquiryId]);
      expect((await store.list({ userId: 'zed', status: 'pending', limit: 10 })).items).toEqual([]);
      const results = await Promise.all([
        store.escalate(inquiry.inquiryId, at + 5),
        peer.escalate(inquiry.inquiryId, at + 6),
      ]);
      const done = results.filter((r) => r !== null);
      expect(done).toHaveLength(1);
      expect(done[0]?.escalation?.escalatedAt).toBeGreaterThan(at);
      const listed = await peer.list({ userId: 'zed', status: 'pending', limit: 10 });
      expect(listed.items.map((i) => i.inquiryId)).toEqual([inquiry.inquiryId]);
      expect(await store.countPending('zed')).toBe(1);
      expect(await store.listDueEscalations(Date.now(), 10)).toEqual([]);
      expect((await store.get(inquiry.inquiryId))?.escalation).toMatchObject({
        users: ['zed'],
        team: 'oncall',
      });
      expect(await store.escalate(later.inquiryId, Date.now())).not.toBeNull();
    });

    it('never escalates an ended inquiry, and keeps the escalation time on the resolved one', async () => {
      const { store } = await open();
      const inquiry = await createNew(store, {
        audience: ['ann'],
        escalation: { at: Date.now() - 1, users: ['zed'] },
      });
      await store.escalate(inquiry.inquiryId, Date.now());
      const ended = await store.resolve(inquiry.inquiryId, {
        status: 'answered',
        answer: 'M',
        resolvedBy: { kind: 'human', userId: 'zed' },
        resolvedAt: Date.now(),
      });
      expect(ended.kind !== 'not_found' && ended.inquiry.escalation?.escalatedAt).toBeGreaterThan(0);
      const other = await createNew(store, {
        audience: ['ann'],
        escalation: { at: Date.now() - 1, users: ['zed'] },
      });
      await store.resolve(other.inquiryId, {
        status: 'cancelled',
        resolvedBy: { kind: 'agent' },
        resolvedAt: Date.now(),
      });
      expect(await store.escalate(other.inquiryId, Date.now())).toBeNull();
      expect(await store.listDueEscalations(Date.now(), 10)).toEqual([]);
      expect(await store.escalate('01ARZ3NDEKTSV4RRFFQ69G5FAV', Date.now())).toBeNull();
    });
  });
}
