import { randomBytes } from 'node:crypto';
import type { Delivery } from '@hitl/protocol';
import type { DeliveryLog } from '@hitl/store';
import type { Logger } from 'pino';
import type { Clock } from '../core/ports.js';
import type { AttemptSink } from './slack-api.js';

/** What one Slack call was for, as ops read it (`GET /api/inquiries/:id/channels`, the timeline). */
export interface SlackCall {
  /** `inquiry.created` (posted), `inquiry.updated` (a vote), `inquiry.escalated`, `inquiry.resolved`, `slack.ephemeral`, `slack.modal`. */
  event: string;
  /** `slack:<channel id>` (a DM before it is opened: `slack:<member id>`). */
  url: string;
  inquiryId: string;
  userId: string;
}

/**
 * Every Slack call is a delivery of channel `slack` in the node's delivery log, the same log mail,
 * push and webhooks write: saved pending, then with each HTTP attempt and its outcome.
 */
export class SlackDeliveries {
  constructor(private readonly deps: { log: DeliveryLog; clock: Clock; logger: Logger }) {}

  /** Runs `call` as one recorded delivery; its result, or undefined when it failed (logged). */
  async record<T>(what: SlackCall, call: (onAttempt: AttemptSink) => Promise<T>): Promise<T | undefined> {
    const delivery: Delivery = {
      id: `slack_${randomBytes(16).toString('base64url')}`,
      channel: 'slack',
      ...what,
      createdAt: this.deps.clock.now(),
      status: 'pending',
      attempts: [],
    };
    await this.save(delivery);
    try {
      const result = await call((attempt) => delivery.attempts.push(attempt));
      delivery.status = 'delivered';
      return result;
    } catch (error) {
      delivery.status = 'failed';
      const message = (error as Error).message;
      if (!delivery.attempts.some((a) => a.error))
        delivery.attempts.push({ at: this.deps.clock.now(), error: message });
      this.deps.logger.warn(
        { channel: 'slack', event: what.event, inquiryId: what.inquiryId, err: message },
        'slack call failed',
      );
      return undefined;
    } finally {
      await this.save(delivery);
    }
  }

  /** Tells ops of a call that never ran (the queue was full). */
  async dropped(what: SlackCall, why: string): Promise<void> {
    const at = this.deps.clock.now();
    await this.save({
      id: `slack_${randomBytes(16).toString('base64url')}`,
      channel: 'slack',
      ...what,
      createdAt: at,
      status: 'failed',
      attempts: [{ at, error: why }],
    });
  }

  private async save(delivery: Delivery): Promise<void> {
    await this.deps.log.save(delivery).catch((error: unknown) => {
      this.deps.logger.warn(
        { err: (error as Error).message, deliveryId: delivery.id },
        'delivery log not written',
      );
    });
  }
}
