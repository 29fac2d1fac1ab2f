import type { LinkTokens } from '@hitl/auth';
import type { Inquiry } from '@hitl/protocol';
import type { SlackPost, SlackStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { Clock, InquiryEvents } from '../core/ports.js';
import type { DirectoryHolder } from '../directory/directory.js';
import type { KeyedQueue } from './keyed-queue.js';
import { inquiryMessage } from './message-blocks.js';
import type { MessageContext } from './message-parts.js';
import type { SlackApi } from './slack-api.js';
import type { SlackDeliveries } from './slack-deliveries.js';
import { createdTargets, escalatedTargets, type SlackTarget } from './slack-targets.js';

export interface SlackNotifierDeps {
  api: SlackApi;
  store: SlackStore;
  deliveries: SlackDeliveries;
  queue: KeyedQueue;
  directory: DirectoryHolder;
  /** The inquiry as the store has it now. */
  find(inquiryId: string): Promise<Inquiry | null>;
  links: LinkTokens;
  /** Where answer links point: `<publicUrl>/a/<token>`. */
  publicUrl: () => string;
  clock: Clock;
  logger: Logger;
}

/** How long posts and update claims are kept past the inquiry's deadline. */
const KEEP_AFTER_DEADLINE_MS = 24 * 3600_000;

/** What changed, for an update: the end, a vote (`vote<n>`: the n-th), the escalation. */
type Change = 'end' | 'escalated' | `vote${number}`;

const EVENT_OF = (change: Change) =>
  change === 'end' ? 'inquiry.resolved' : change === 'escalated' ? 'inquiry.escalated' : 'inquiry.updated';

/**
 * Slack as one more device, as event listeners of this node: post when the inquiry is asked (and to
 * whom an escalation adds), update every message of it when it ends, after each quorum vote and on
 * escalation, never otherwise. The events only queue work (`KeyedQueue`): nothing on the MCP path or a
 * device's ack waits for Slack. Each update of a message is claimed in the shared store first, so it
 * runs once in the cluster whichever nodes see the change.
 */
export class SlackNotifier implements InquiryEvents {
  constructor(private readonly deps: SlackNotifierDeps) {}

  created(inquiry: Inquiry): void {
    this.queue(inquiry, 'inquiry.created', () => this.postAll(inquiry, createdTargets));
  }

  escalated(inquiry: Inquiry): void {
    this.queue(inquiry, 'inquiry.escalated', async () => {
      await this.updateAll(inquiry, 'escalated');
      await this.postAll(inquiry, escalatedTargets);
    });
  }

  /** A counted quorum vote (a suggested answer changes nothing in Slack). */
  updated(inquiry: Inquiry): void {
    const votes = inquiry.votes?.length ?? 0;
    if (inquiry.quorum === undefined || votes === 0) return;
    this.queue(inquiry, 'inquiry.updated', () => this.updateAll(inquiry, `vote${votes}`));
  }

  resolved(inquiry: Inquiry): void {
    this.queue(inquiry, 'inquiry.resolved', () => this.updateAll(inquiry, 'end'));
  }

  private queue(inquiry: Inquiry, event: string, job: () => Promise<void>): void {
    if (this.deps.queue.push(inquiry.inquiryId, job)) return;
    this.deps.logger.warn({ inquiryId: inquiry.inquiryId, event }, 'slack: queue full, dropped');
    void this.deps.deliveries.dropped(
      { event, url: 'slack:', inquiryId: inquiry.inquiryId, userId: inquiry.userId },
      'not sent: too many Slack calls waiting on this node',
    );
  }

  private async postAll(inquiry: Inquiry, targetsOf: typeof createdTargets): Promise<void> {
    const targets = targetsOf(inquiry, this.deps.directory.current);
    if (targets.length === 0) return;
    const posted = new Set((await this.deps.store.posts(inquiry.inquiryId)).map((post) => post.target));
    for (const target of targets) if (!posted.has(target.target)) await this.post(inquiry, target);
  }

  /** Posts the question to one target, unless it ended meanwhile; a post that raced an ending is updated. */
  private async post(asked: Inquiry, target: SlackTarget): Promise<void> {
    const { api, store, deliveries, find } = this.deps;
    const inquiry = await find(asked.inquiryId);
    if (inquiry?.status !== 'pending') return;
    const userId = target.kind === 'dm' ? target.userId : inquiry.userId;
    const url = `slack:${target.kind === 'dm' ? target.memberId : target.channel}`;
    const ctx = await this.context(inquiry, target);
    const posted = await deliveries.record(
      { event: 'inquiry.created', url, inquiryId: inquiry.inquiryId, userId },
      async (onAttempt) => {
        const channel = target.kind === 'dm' ? await api.openDm(target.memberId, onAttempt) : target.channel;
        return api.postMessage(channel, inquiryMessage(inquiry, ctx), onAttempt);
      },
    );
    if (!posted) return;
    const post: SlackPost = {
      target: target.target,
      channel: posted.channel,
      ts: posted.ts,
      ...(target.kind === 'dm' ? { userId: target.userId } : {}),
    };
    await store.addPost(inquiry.inquiryId, post, this.keepUntil(inquiry));
    const now = await find(inquiry.inquiryId);
    if (now && now.status !== 'pending') await this.updateOne(now, 'end', post);
  }

  /**
   * Updates every message of the inquiry for one change. A vote or an escalation of an inquiry that
   * has ended meanwhile changes nothing: its end does.
   */
  private async updateAll(changed: Inquiry, change: Change): Promise<void> {
    const posts = await this.deps.store.posts(changed.inquiryId);
    if (posts.length === 0) return;
    const inquiry = change === 'end' ? changed : await this.deps.find(changed.inquiryId);
    if (!inquiry || (change !== 'end' && inquiry.status !== 'pending')) return;
    for (const post of posts) await this.updateOne(inquiry, change, post);
  }

  private async updateOne(inquiry: Inquiry, change: Change, post: SlackPost): Promise<void> {
    const { api, store, deliveries } = this.deps;
    const claimed = await store.claim(
      `${inquiry.inquiryId}:${change}:${post.target}`,
      this.keepUntil(inquiry),
    );
    if (!claimed) return;
    const ctx = await this.context(inquiry, post.userId ? { kind: 'dm', userId: post.userId } : undefined);
    await deliveries.record(
      {
        event: EVENT_OF(change),
        url: `slack:${post.channel}`,
        inquiryId: inquiry.inquiryId,
        userId: post.userId ?? inquiry.userId,
      },
      (onAttempt) => api.updateMessage(post.channel, post.ts, inquiryMessage(inquiry, ctx), onAttempt),
    );
  }

  /** Names from the directory; for a pending DM, an answer link signed for that one person. */
  private async context(
    inquiry: Inquiry,
    target: { kind: string; userId?: string } | undefined,
  ): Promise<MessageContext> {
    const nameOf = (userId: string) => this.deps.directory.user(userId)?.name ?? userId;
    const base = this.deps.publicUrl().replace(/\/+$/, '');
    const pageUrl = `${base}/i/${inquiry.inquiryId}`;
    if (inquiry.status !== 'pending' || target?.kind !== 'dm' || !target.userId) return { nameOf, pageUrl };
    const token = await this.deps.links.sign({
      userId: target.userId,
      inquiryId: inquiry.inquiryId,
      channel: 'slack',
      expiresAt: inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt,
    });
    return { nameOf, pageUrl, answerUrl: `${base}/a/${token}` };
  }

  private keepUntil(inquiry: Inquiry): number {
    const deadline = inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt;
    return Math.max(deadline, this.deps.clock.now()) + KEEP_AFTER_DEADLINE_MS;
  }
}
