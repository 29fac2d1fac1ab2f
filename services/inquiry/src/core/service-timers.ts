import { HitlError, type Inquiry } from '@hitl/protocol';
import type { InquiryStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { InquiryService } from './inquiry-service.js';
import type { Clock } from './ports.js';

const SWEEP_BATCH = 200;
/** The longest delay `setTimeout` keeps (about 24.8 days); a later deadline re-arms in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Tier 2: resolves every inquiry still pending at its service deadline. A local timer fires on time
 * for the inquiries this node created; a periodic sweep of the store's deadline index catches the
 * rest (e.g. those of a node that died). Resolve-once makes it safe for every node to sweep at once.
 */
export class ServiceTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private sweeper: NodeJS.Timeout | undefined;
  private sweeping = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly deps: {
      service: InquiryService;
      store: InquiryStore;
      clock: Clock;
      logger: Logger;
      sweepMs: number;
    },
  ) {}

  start(): void {
    this.unsubscribe = this.deps.store.onResolved((inquiry: Inquiry) => this.clear(inquiry.inquiryId));
    this.sweeper = setInterval(() => void this.sweep(), this.deps.sweepMs);
    this.sweeper.unref();
  }

  stop(): void {
    this.unsubscribe?.();
    if (this.sweeper) clearInterval(this.sweeper);
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** Arms the local timer for an inquiry this node holds. */
  schedule(inquiry: Inquiry): void {
    if (inquiry.status !== 'pending' || this.timers.has(inquiry.inquiryId)) return;
    const delay = Math.max(0, inquiry.deadlines.serviceAt - this.deps.clock.now());
    const timer = setTimeout(
      () => {
        this.timers.delete(inquiry.inquiryId);
        if (delay > MAX_TIMER_MS) this.schedule(inquiry);
        else void this.expire(inquiry.inquiryId);
      },
      Math.min(delay, MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.set(inquiry.inquiryId, timer);
  }

  get scheduled(): number {
    return this.timers.size;
  }

  private clear(inquiryId: string): void {
    const timer = this.timers.get(inquiryId);
    if (timer) clearTimeout(timer);
    this.timers.delete(inquiryId);
  }

  /** Resolves every inquiry past its service deadline; returns how many this node ended. */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let ended = 0;
    try {
      const due = await this.deps.store.listDue(this.deps.clock.now(), SWEEP_BATCH);
      for (const id of due) if (await this.expire(id)) ended++;
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'deadline sweep failed; retrying next round');
    } finally {
      this.sweeping = false;
    }
    return ended;
  }

  private async expire(inquiryId: string): Promise<boolean> {
    try {
      const result = await this.deps.service.settle(inquiryId, undefined, { type: 'service-timer' });
      return result.kind === 'won';
    } catch (error) {
      if (error instanceof HitlError && error.code === 'not_found') return false;
      this.deps.logger.warn(
        { err: error, inquiryId },
        'service timeout could not be written; the sweep retries',
      );
      return false;
    }
  }
}
