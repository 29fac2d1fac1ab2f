import { randomBytes } from 'node:crypto';
import type { LinkTokens } from '@hitl/auth';
import { audienceOf, type Delivery, type Inquiry, type Webhook, type WebhookEvent } from '@hitl/protocol';
import type { Logger } from 'pino';
import { Webhook as Signer } from 'standardwebhooks';
import type { Clock, InquiryEvents } from '../core/ports.js';
import type { DirectoryHolder } from '../directory/directory.js';
import type { DeliveryLog } from './delivery-log.js';
import { postWebhook } from './webhook-post.js';

export interface WebhookDispatcherDeps {
  directory: DirectoryHolder;
  log: DeliveryLog;
  links: LinkTokens;
  publicUrl: () => string;
  /** Hosts (or IP literals) a webhook may reach although they are loopback or private. */
  allowHosts: readonly string[];
  /** The first retry's delay; later ones grow (× 6, 24, 60, 120): 17.6 min in all at 5 s. */
  backoffMs: number;
  clock: Clock;
  logger: Logger;
}

/** Retry delays as multiples of `backoffMs`: five retries after the first attempt. */
const BACKOFF_STEPS = [1, 6, 24, 60, 120];

/** Whether this webhook hears of this user's inquiries (DESIGN §6.3; docs/OPERATIONS.md). */
function listens(hook: Webhook, event: WebhookEvent, userId: string, directory: DirectoryHolder): boolean {
  if (!hook.events.includes(event)) return false;
  if (hook.users) return hook.users.includes(userId);
  const notify = directory.user(userId)?.notify;
  return !notify || notify.includes('webhook');
}

/**
 * Standard Webhooks deliveries of `inquiry.created` (on the node that created it) and
 * `inquiry.resolved` (on the node whose resolve won): at least once while this node runs, the same
 * `webhook-id` on every attempt, exponential backoff, every attempt kept in the delivery log for ops.
 * Nothing here runs on the MCP path or delays a device's ack.
 */
export class WebhookDispatcher implements InquiryEvents {
  private readonly timers = new Set<unknown>();
  private stopped = false;

  constructor(private readonly deps: WebhookDispatcherDeps) {}

  created(inquiry: Inquiry): void {
    void this.dispatch('inquiry.created', inquiry);
  }

  resolved(inquiry: Inquiry): void {
    void this.dispatch('inquiry.resolved', inquiry);
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers) this.deps.clock.clearTimeout(timer);
    this.timers.clear();
  }

  private async dispatch(event: WebhookEvent, inquiry: Inquiry): Promise<void> {
    // A webhook hears of an inquiry when it listens for any person it is addressed to.
    const asked = audienceOf(inquiry);
    const hooks = this.deps.directory.current.webhooks
      .map((hook) => ({
        hook,
        people: asked.filter((userId) => listens(hook, event, userId, this.deps.directory)),
      }))
      .filter(({ people }) => people.length > 0);
    if (hooks.length === 0) return;
    try {
      const timestamp = new Date(this.deps.clock.now());
      for (const { hook, people } of hooks) {
        const data: Record<string, unknown> = { inquiry };
        // A link acts for one person: only a webhook that hears for one person alone carries one,
        // signed for that person (one body for several people carries none).
        const [person] = people;
        if (event === 'inquiry.created' && people.length === 1 && person !== undefined) {
          data.answerUrl = await this.answerUrl(inquiry, person);
        }
        const body = JSON.stringify({ type: event, timestamp: timestamp.toISOString(), data });
        const delivery: Delivery = {
          id: `msg_${randomBytes(16).toString('base64url')}`,
          channel: 'webhook',
          event,
          url: hook.url,
          inquiryId: inquiry.inquiryId,
          userId: inquiry.userId,
          createdAt: timestamp.getTime(),
          status: 'pending',
          attempts: [],
        };
        await this.deps.log.save(delivery);
        void this.attempt(delivery, hook, body);
      }
    } catch (error) {
      this.deps.logger.warn(
        { inquiryId: inquiry.inquiryId, err: (error as Error).message },
        'webhook not queued',
      );
    }
  }

  /** A link answering as `userId`, the one person this webhook hears for. */
  private async answerUrl(inquiry: Inquiry, userId: string): Promise<string> {
    const token = await this.deps.links.sign({
      userId,
      inquiryId: inquiry.inquiryId,
      channel: 'webhook',
      expiresAt: inquiry.deadlines.answerBy ?? inquiry.deadlines.serviceAt,
    });
    return `${this.deps.publicUrl().replace(/\/+$/, '')}/a/${token}`;
  }

  private async attempt(delivery: Delivery, hook: Webhook, body: string): Promise<void> {
    if (this.stopped) return;
    const { clock, logger } = this.deps;
    // Each attempt is signed afresh: the timestamp is the attempt's, the id the delivery's.
    const at = new Date(clock.now());
    const signature = new Signer(hook.secret).sign(delivery.id, at, body);
    const headers = {
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const outcome = await postWebhook(hook.url, headers, body, this.deps.allowHosts);
    const ok = 'status' in outcome && outcome.status >= 200 && outcome.status < 300;
    delivery.attempts.push({ at: at.getTime(), ...outcome });
    const step = BACKOFF_STEPS[delivery.attempts.length - 1];
    if (ok) delivery.status = 'delivered';
    else if (step === undefined) delivery.status = 'failed';
    delivery.nextAttemptAt = !ok && step !== undefined ? clock.now() + step * this.deps.backoffMs : undefined;
    await this.deps.log.save(delivery).catch((error: unknown) => {
      logger.warn({ err: (error as Error).message, webhookId: delivery.id }, 'delivery log not written');
    });
    if (ok || step === undefined) {
      const level = ok ? 'info' : 'warn';
      logger[level](
        { webhookId: delivery.id, inquiryId: delivery.inquiryId, status: delivery.status },
        'webhook',
      );
      return;
    }
    const timer = clock.setTimeout(() => {
      this.timers.delete(timer);
      void this.attempt(delivery, hook, body);
    }, step * this.deps.backoffMs);
    (timer as { unref?: () => void }).unref?.();
    this.timers.add(timer);
  }
}
