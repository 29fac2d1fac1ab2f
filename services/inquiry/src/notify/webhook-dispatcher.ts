import { randomBytes } from 'node:crypto';
import type { LinkTokens } from '@hitl/auth';
import { audienceOf, type Delivery, type Inquiry, type Webhook, type WebhookEvent } from '@hitl/protocol';
import type { DeliveryLog } from '@hitl/store';
import type { Logger } from 'pino';
import { Webhook as Signer } from 'standardwebhooks';
import type { Clock, InquiryEvents } from '../core/ports.js';
import type { DirectoryHolder } from '../directory/directory.js';
import { postWebhook } from './webhook-post.js';
import { type HeldRetry, RetryBudget, type RetryCaps } from './webhook-retry-budget.js';

export interface WebhookDispatcherDeps {
  directory: DirectoryHolder;
  log: DeliveryLog;
  links: LinkTokens;
  publicUrl: () => string;
  /** Hosts (or IP literals) a webhook may reach although they are loopback or private. */
  allowHosts: readonly string[];
  /** The first retry's delay; later ones grow (× 6, 24, 60, 120): 17.6 min in all at 5 s. */
  backoffMs: number;
  /** The memory bound of waiting retries (`HITL_WEBHOOK_RETRY_BYTES`, `..._PER_USER`). */
  retryCaps: RetryCaps;
  clock: Clock;
  logger: Logger;
}

/** Retry delays as multiples of `backoffMs`: five retries after the first attempt. */
const BACKOFF_STEPS = [1, 6, 24, 60, 120];

/** A delivery waiting for its next attempt, with the body it keeps meanwhile. */
interface Waiting extends HeldRetry {
  delivery: Delivery;
  timer?: unknown;
  /** Its attempt is under way: it cannot be dropped now. */
  running: boolean;
}

/** What a dropped retry's record says (the last "attempt", with no status). */
const DROPPED =
  'not retried: dropped to keep waiting retries within their memory cap (HITL_WEBHOOK_RETRY_BYTES per webhook, HITL_WEBHOOK_RETRY_BYTES_PER_USER per user); the oldest go first';
const NOT_HELD =
  'not retried: this body alone, or with the retries under way, is over the memory cap (HITL_WEBHOOK_RETRY_BYTES per webhook, HITL_WEBHOOK_RETRY_BYTES_PER_USER per user)';

/** Whether this webhook hears of this user's inquiries (docs/OPERATIONS.md). */
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
 * Waiting retries keep their bodies in memory within `retryCaps` (oldest dropped, recorded failed); a
 * target the outbound guard refuses is final at once. Nothing here runs on the MCP path or delays a
 * device's ack.
 */
export class WebhookDispatcher implements InquiryEvents {
  private readonly timers = new Set<unknown>();
  private readonly retries: RetryBudget<Waiting>;
  private stopped = false;

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.retries = new RetryBudget<Waiting>(deps.retryCaps);
  }

  /** Bytes of bodies kept for waiting retries (the `hitl_webhook_retry_bytes` gauge). */
  get retryBytes(): number {
    return this.retries.bytes;
  }

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
    const waiting = this.retries.get(delivery.id);
    if (waiting) waiting.running = true;
    // Each attempt is signed afresh: the timestamp is the attempt's, the id the delivery's.
    const at = new Date(clock.now());
    const signature = new Signer(hook.secret).sign(delivery.id, at, body);
    const headers = {
      'webhook-id': delivery.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const result = await postWebhook(hook.url, headers, body, this.deps.allowHosts);
    const blocked = 'error' in result && result.blocked === true;
    const ok = 'status' in result && result.status >= 200 && result.status < 300;
    const outcome = 'status' in result ? { status: result.status } : { error: result.error };
    delivery.attempts.push({ at: at.getTime(), ...outcome });
    // A refused target is refused again on every retry: final at once.
    const step = blocked ? undefined : BACKOFF_STEPS[delivery.attempts.length - 1];
    let entry: Waiting | undefined;
    if (!ok && step !== undefined) entry = this.hold(delivery, hook, body, waiting);
    else this.retries.release(delivery.id);
    if (ok) delivery.status = 'delivered';
    else if (!entry) delivery.status = 'failed';
    delivery.nextAttemptAt =
      entry && step !== undefined ? clock.now() + step * this.deps.backoffMs : undefined;
    await this.save(delivery);
    if (!entry || step === undefined) {
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
    entry.timer = timer;
  }

  /**
   * Keeps the body for the next retry within the caps: older retries of the same webhook or user
   * are dropped to make room (recorded failed); undefined when even that cannot make room.
   */
  private hold(delivery: Delivery, hook: Webhook, body: string, waiting?: Waiting): Waiting | undefined {
    if (waiting) {
      waiting.running = false;
      return waiting;
    }
    const entry: Waiting = {
      id: delivery.id,
      hook: hook.url,
      userId: delivery.userId,
      bytes: Buffer.byteLength(body),
      delivery,
      running: false,
    };
    const admission = this.retries.admit(entry, (old) => !old.running);
    for (const dropped of admission.dropped) this.drop(dropped);
    if (admission.held) return entry;
    delivery.attempts.push({ at: this.deps.clock.now(), error: NOT_HELD });
    return undefined;
  }

  /** A retry dropped for room: its timer cleared, its record failed with the reason. */
  private drop(dropped: Waiting): void {
    if (dropped.timer !== undefined) {
      this.deps.clock.clearTimeout(dropped.timer);
      this.timers.delete(dropped.timer);
    }
    const { delivery } = dropped;
    delivery.status = 'failed';
    delivery.nextAttemptAt = undefined;
    delivery.attempts.push({ at: this.deps.clock.now(), error: DROPPED });
    this.deps.logger.warn(
      { webhookId: delivery.id, inquiryId: delivery.inquiryId, bytes: dropped.bytes },
      'webhook retry dropped: retry memory cap',
    );
    void this.save(delivery);
  }

  private async save(delivery: Delivery): Promise<void> {
    await this.deps.log.save(delivery).catch((error: unknown) => {
      this.deps.logger.warn(
        { err: (error as Error).message, webhookId: delivery.id },
        'delivery log not written',
      );
    });
  }
}
