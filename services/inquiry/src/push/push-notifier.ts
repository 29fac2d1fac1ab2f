import { randomBytes } from 'node:crypto';
import { audienceOf, type Delivery, type Inquiry } from '@hitl/protocol';
import { isUnreachableSubject, type VapidKeys } from '@hitl/runtime';
import type { DeliveryLog, PushSubscriptionRecord, PushSubscriptionStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { Clock, InquiryEvents } from '../core/ports.js';
import { endpointProblem } from './push-endpoint.js';
import { inquiryPush, inquiryTtl, pushTopic, resolvedPush, resolvedTtl } from './push-payload.js';
import { type PushMessage, type PushOutcome, sendPush } from './send-push.js';

export type PushType = 'inquiry' | 'resolved';
/** How a push ended (or a retry was scheduled), as counted in metrics. */
export type PushResult = 'delivered' | 'gone' | 'failed' | 'retried' | 'dropped' | 'expired';

export interface PushLimits {
  /** Pushes in flight at once. */
  concurrency: number;
  /** Pushes waiting (queued or between retries); beyond it new ones are dropped and logged. */
  maxQueued: number;
  /** Tries per push, the first included. */
  maxAttempts: number;
  /** First retry delay; doubled each time, with jitter. */
  baseDelayMs: number;
  /** The longest wait between tries; a `Retry-After` beyond it ends the push (`failed`). */
  maxDelayMs: number;
}

export const DEFAULT_PUSH_LIMITS: PushLimits = {
  concurrency: 8,
  maxQueued: 2000,
  maxAttempts: 4,
  baseDelayMs: 1000,
  maxDelayMs: 5 * 60_000,
};

export interface PushNotifierDeps {
  subscriptions: PushSubscriptionStore;
  vapid: VapidKeys;
  allowHttpHosts: readonly string[];
  clock: Clock;
  logger: Logger;
  metrics?: { pushed(type: PushType, result: PushResult): void };
  /** Where ops read what each push did (`GET /api/inquiries/:id/channels`), channel `push`. */
  deliveries?: DeliveryLog;
  /** Whether the device token a subscription was saved with has been revoked since. */
  revoked?: (subscription: PushSubscriptionRecord) => boolean;
  limits?: Partial<PushLimits>;
}

interface Task {
  type: PushType;
  inquiry: Inquiry;
  subscription: PushSubscriptionRecord;
  /** subscription id + inquiry id: the pushes that share a Topic on one device. */
  key: string;
  attempt: number;
  /** The inquiry was resolved meanwhile: an `inquiry` push not yet sent is not sent any more. */
  superseded?: boolean;
  /** The ops record of this push: one per push, its attempts appended. */
  delivery: Delivery;
}

/** Inquiry ids this node resolved lately: an `inquiry` push that is only now being queued is skipped. */
const RECENT_RESOLVED = 5000;

/**
 * Web Push for this node's events: when this node creates an inquiry, one `inquiry` push
 * to each of its user's subscriptions; when this node's resolve wins, one `resolved` push with the
 * same Topic. So in a cluster each push is sent once, by the node that saw the event.
 *
 * Nothing here is awaited by the caller: the events only queue work (bounded, `concurrency` at a
 * time), so the MCP call and the device's ack never wait for a push service. 404/410 deletes the
 * subscription; 429, 5xx and network errors are tried again with exponential backoff (honouring
 * `Retry-After`) up to `maxAttempts`. On one node the `resolved` push to a device goes after its
 * `inquiry` push has settled, and an `inquiry` push still waiting to be retried is dropped.
 */
export class PushNotifier implements InquiryEvents {
  private readonly limits: PushLimits;
  private readonly ready: Task[] = [];
  private readonly timers = new Set<unknown>();
  /** Live `inquiry` tasks (queued, waiting or running) by key. */
  private readonly inquiryTasks = new Map<string, Task>();
  /** `resolved` tasks waiting for their key's running `inquiry` task. */
  private readonly afterRunning = new Map<string, Task>();
  private readonly running = new Set<Task>();
  private readonly recentlyResolved = new Set<string>();
  private waiting = 0;
  private closed = false;

  constructor(private readonly deps: PushNotifierDeps) {
    this.limits = { ...DEFAULT_PUSH_LIMITS, ...deps.limits };
  }

  created(inquiry: Inquiry): void {
    void this.fanOut(inquiry, 'inquiry');
  }

  /** The people an escalation added get the question as new. */
  escalated(inquiry: Inquiry): void {
    void this.fanOut(inquiry, 'inquiry', inquiry.escalation?.users ?? []);
  }

  resolved(inquiry: Inquiry): void {
    this.recentlyResolved.add(inquiry.inquiryId);
    if (this.recentlyResolved.size > RECENT_RESOLVED) {
      const oldest = this.recentlyResolved.values().next().value;
      if (oldest !== undefined) this.recentlyResolved.delete(oldest);
    }
    void this.fanOut(inquiry, 'resolved');
  }

  /** Pushes queued or waiting to be retried (not those in flight). */
  get backlog(): number {
    return this.waiting;
  }

  /** Drops what is queued and the pending retries; pushes in flight finish on their own. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) this.deps.clock.clearTimeout(timer);
    this.timers.clear();
    this.ready.length = 0;
    this.afterRunning.clear();
    this.waiting = 0;
  }

  private async fanOut(inquiry: Inquiry, type: PushType, users = audienceOf(inquiry)): Promise<void> {
    let subscriptions: PushSubscriptionRecord[];
    try {
      // Every user the inquiry is addressed to (the asker's user alone when it names no audience).
      const lists = await Promise.all(users.map((userId) => this.deps.subscriptions.listForPush(userId)));
      subscriptions = lists.flat();
    } catch (error) {
      this.log(inquiry).warn({ err: error, type }, 'push: could not read subscriptions');
      return;
    }
    if (type === 'inquiry' && this.recentlyResolved.has(inquiry.inquiryId)) return;
    for (const subscription of subscriptions) {
      // A revoked device token takes its subscription with it: nothing more reaches that browser.
      if (this.deps.revoked?.(subscription)) {
        void this.deps.subscriptions
          .removeEndpoint(subscription.userId, subscription.endpoint)
          .catch(() => false);
        this.log(inquiry).info(
          { subscription: subscription.id },
          'push: subscription of a revoked token removed',
        );
        continue;
      }
      this.submit({
        type,
        inquiry,
        subscription,
        key: `${subscription.id}\u0000${inquiry.inquiryId}`,
        attempt: 1,
        delivery: {
          id: `push_${randomBytes(12).toString('base64url')}`,
          channel: 'push',
          event: type === 'inquiry' ? 'inquiry.created' : 'inquiry.resolved',
          url: originOf(subscription.endpoint),
          inquiryId: inquiry.inquiryId,
          userId: subscription.userId,
          createdAt: this.deps.clock.now(),
          status: 'pending',
          attempts: [],
        },
      });
    }
  }

  private submit(task: Task): void {
    if (this.closed) return;
    if (this.waiting >= this.limits.maxQueued) {
      this.count(task, 'dropped');
      this.record(task, 'failed', { error: 'not sent: the push queue was full' });
      this.log(task.inquiry).warn(
        { type: task.type, backlog: this.waiting },
        'push: queue full, push dropped',
      );
      return;
    }
    this.waiting += 1;
    if (task.type === 'inquiry') {
      this.inquiryTasks.set(task.key, task);
    } else {
      const earlier = this.inquiryTasks.get(task.key);
      if (earlier) earlier.superseded = true;
      if (earlier && this.running.has(earlier)) {
        this.afterRunning.set(task.key, task);
        return;
      }
    }
    this.ready.push(task);
    this.pump();
  }

  private pump(): void {
    while (!this.closed && this.running.size < this.limits.concurrency) {
      const task = this.ready.shift();
      if (!task) return;
      this.waiting -= 1;
      this.running.add(task);
      void this.attempt(task).finally(() => {
        this.running.delete(task);
        this.settled(task);
        this.pump();
      });
    }
  }

  /** A task ended for good or went back to wait for a retry: release what waited on it. */
  private settled(task: Task): void {
    if (task.type !== 'inquiry') return;
    const next = this.afterRunning.get(task.key);
    if (next) {
      this.afterRunning.delete(task.key);
      this.ready.push(next);
    }
  }

  private finish(task: Task, result: PushResult, attempt: { status?: number; error?: string }): void {
    if (task.type === 'inquiry' && this.inquiryTasks.get(task.key) === task)
      this.inquiryTasks.delete(task.key);
    this.count(task, result);
    this.record(task, result === 'delivered' ? 'delivered' : 'failed', attempt);
  }

  /** Appends the attempt to the push's ops record and saves it (never awaited by the sender). */
  private record(task: Task, status: Delivery['status'], attempt: { status?: number; error?: string }): void {
    const { deliveries, clock } = this.deps;
    if (!deliveries) return;
    task.delivery.status = status;
    task.delivery.attempts.push({ at: clock.now(), ...attempt });
    void deliveries.save(structuredClone(task.delivery)).catch((error: unknown) => {
      this.log(task.inquiry).warn({ err: error }, 'push: delivery record not written');
    });
  }

  private async attempt(task: Task): Promise<void> {
    const { clock, vapid, allowHttpHosts } = this.deps;
    if (task.superseded) return this.finish(task, 'expired', { error: 'not sent: the inquiry ended first' });
    const now = clock.now();
    const message = this.message(task, now);
    if (task.type === 'inquiry' && message.ttl <= 0 && task.attempt > 1) {
      return this.finish(task, 'expired', { error: 'not sent: the time to answer ran out' });
    }
    const problem = endpointProblem(task.subscription.endpoint, allowHttpHosts);
    if (problem) {
      this.log(task.inquiry).warn({ type: task.type, problem }, 'push: endpoint no longer allowed, not sent');
      return this.finish(task, 'failed', { error: problem });
    }
    let outcome: PushOutcome;
    try {
      outcome = await sendPush(task.subscription, message, vapid, clock.now(), allowHttpHosts);
    } catch (error) {
      // web-push refused the subscription (keys it cannot use): no retry helps.
      this.log(task.inquiry).warn({ err: error, type: task.type }, 'push: not sent');
      return this.finish(task, 'failed', { error: (error as Error).message });
    }
    await this.handle(task, outcome);
  }

  private async handle(task: Task, outcome: PushOutcome): Promise<void> {
    const log = this.log(task.inquiry).child({ type: task.type, push: originOf(task.subscription.endpoint) });
    switch (outcome.kind) {
      case 'delivered':
        log.debug({ status: outcome.status, attempt: task.attempt }, 'push delivered');
        return this.finish(task, 'delivered', { status: outcome.status });
      case 'gone':
        log.info({ status: outcome.status }, 'push: subscription gone, deleted');
        await this.deps.subscriptions
          .removeEndpoint(task.subscription.userId, task.subscription.endpoint)
          .catch((error: unknown) => log.warn({ err: error }, 'push: could not delete a gone subscription'));
        return this.finish(task, 'gone', { status: outcome.status, error: 'gone: subscription deleted' });
      case 'blocked':
        log.warn({ reason: outcome.reason }, 'push: endpoint address refused, not sent');
        return this.finish(task, 'failed', { error: outcome.reason });
      case 'failed': {
        const hint =
          outcome.status === 403 && isUnreachableSubject(this.deps.vapid.subject)
            ? `the VAPID subject ${this.deps.vapid.subject} is a placeholder some push services (Apple) refuse; set a real mailto: or https: contact`
            : undefined;
        log.warn({ status: outcome.status, reason: outcome.reason, hint }, 'push refused');
        return this.finish(task, 'failed', { status: outcome.status, error: outcome.reason });
      }
      case 'retry': {
        const backoff = this.limits.baseDelayMs * 2 ** (task.attempt - 1) * (0.75 + Math.random() * 0.5);
        const delay = outcome.afterMs ?? Math.min(backoff, this.limits.maxDelayMs);
        if (task.attempt >= this.limits.maxAttempts || delay > this.limits.maxDelayMs || this.closed) {
          log.warn(
            { status: outcome.status, reason: outcome.reason, attempts: task.attempt },
            'push failed, giving up',
          );
          return this.finish(task, 'failed', {
            ...(outcome.status !== undefined ? { status: outcome.status } : {}),
            error: outcome.reason,
          });
        }
        log.debug({ status: outcome.status, delay, attempt: task.attempt }, 'push: will retry');
        this.count(task, 'retried');
        this.record(task, 'pending', {
          ...(outcome.status !== undefined ? { status: outcome.status } : {}),
          error: outcome.reason,
        });
        this.retryLater({ ...task, attempt: task.attempt + 1 }, task, delay);
        return;
      }
    }
  }

  private retryLater(next: Task, previous: Task, delayMs: number): void {
    if (next.type === 'inquiry' && this.inquiryTasks.get(previous.key) === previous) {
      this.inquiryTasks.set(next.key, next);
    }
    this.waiting += 1;
    const timer = this.deps.clock.setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      if (previous.superseded) next.superseded = true;
      this.ready.push(next);
      this.pump();
    }, delayMs);
    this.timers.add(timer);
  }

  private message(task: Task, now: number): PushMessage {
    const { inquiry } = task;
    const inquiryType = task.type === 'inquiry';
    return {
      payload: JSON.stringify(inquiryType ? inquiryPush(inquiry) : resolvedPush(inquiry)),
      ttl: inquiryType ? inquiryTtl(inquiry, now) : resolvedTtl(inquiry, now),
      topic: pushTopic(inquiry.inquiryId),
      urgency: 'high',
    };
  }

  private count(task: Task, result: PushResult): void {
    this.deps.metrics?.pushed(task.type, result);
  }

  private log(inquiry: Inquiry): Logger {
    return this.deps.logger.child({ inquiryId: inquiry.inquiryId, userId: inquiry.userId });
  }
}

/** The push service's origin: logged instead of the endpoint, which is a capability URL. */
function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'invalid';
  }
}
