import { HitlError, type Inquiry } from '@hitl/protocol';
import type { InquiryStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { InquiryService } from './inquiry-service.js';
import type { Clock } from './ports.js';

const SWEEP_BATCH = 200;
/** The longest delay `setTimeout` keeps (about 24.8 days); a later deadline re-arms in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface TimerDeps {
  service: InquiryService;
  store: InquiryStore;
  clock: Clock;
  logger: Logger;
  sweepMs: number;
}

/** One kind of deadline on pending inquiries: when it falls, how to find the due ones, what to do. */
interface DeadlineKind {
  name: string;
  /** When the inquiry's deadline of this kind falls, or undefined when it has none (any more). */
  dueAt(inquiry: Inquiry): number | undefined;
  /** Pending ids due by `now`, oldest first. */
  listDue(now: number, limit: number): Promise<string[]>;
  /** Acts on one due inquiry; true when this node did it. */
  fire(inquiryId: string): Promise<boolean>;
}

/**
 * Local timers that fire on time for the inquiries this node created, and a sweep of the store's due
 * index (run by {@link DeadlineSweeper}) that catches the rest (e.g. those of a node that died). The
 * store's one-winner steps make it safe for every node to sweep at once.
 */
class DeadlineTimers {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private sweeping = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    protected readonly deps: TimerDeps,
    private readonly kind: DeadlineKind,
  ) {}

  start(): void {
    this.unsubscribe = this.deps.store.onResolved((inquiry: Inquiry) => this.clear(inquiry.inquiryId));
  }

  stop(): void {
    this.unsubscribe?.();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** Arms the local timer for an inquiry this node holds. */
  schedule(inquiry: Inquiry): void {
    const dueAt = this.kind.dueAt(inquiry);
    if (inquiry.status !== 'pending' || dueAt === undefined || this.timers.has(inquiry.inquiryId)) return;
    const delay = Math.max(0, dueAt - this.deps.clock.now());
    const timer = setTimeout(() => this.due(inquiry, delay), Math.min(delay, MAX_TIMER_MS));
    timer.unref();
    this.timers.set(inquiry.inquiryId, timer);
  }

  /** A local timer fell: acts on the inquiry, or re-arms for a deadline past the longest timer. */
  private due(inquiry: Inquiry, delay: number): void {
    this.timers.delete(inquiry.inquiryId);
    if (delay > MAX_TIMER_MS) this.schedule(inquiry);
    else void this.fire(inquiry.inquiryId);
  }

  get scheduled(): number {
    return this.timers.size;
  }

  clear(inquiryId: string): void {
    const timer = this.timers.get(inquiryId);
    if (timer) clearTimeout(timer);
    this.timers.delete(inquiryId);
  }

  /**
   * Acts on every inquiry past its deadline; returns how many were due (whether this node or another
   * one acted on them), so the sweeper knows whether there was anything to do.
   */
  async sweep(): Promise<number> {
    if (this.sweeping) return 0;
    this.sweeping = true;
    let done = 0;
    try {
      const due = await this.kind.listDue(this.deps.clock.now(), SWEEP_BATCH);
      done = due.length;
      for (const id of due) await this.fire(id);
    } catch (error) {
      this.deps.logger.warn({ err: error }, `${this.kind.name} sweep failed; retrying next round`);
    } finally {
      this.sweeping = false;
    }
    return done;
  }

  private async fire(inquiryId: string): Promise<boolean> {
    try {
      return await this.kind.fire(inquiryId);
    } catch (error) {
      if (error instanceof HitlError && error.code === 'not_found') return false;
      this.deps.logger.warn(
        { err: error, inquiryId },
        `${this.kind.name} could not be written; the sweep retries`,
      );
      return false;
    }
  }
}

/** Tier 2: resolves every inquiry still pending at its service deadline. */
export class ServiceTimers extends DeadlineTimers {
  constructor(deps: TimerDeps) {
    super(deps, {
      name: 'service timeout',
      dueAt: (inquiry) => inquiry.deadlines.serviceAt,
      listDue: (now, limit) => deps.store.listDue(now, limit),
      fire: async (inquiryId) =>
        (await deps.service.settle(inquiryId, undefined, { type: 'service-timer' })).kind === 'won',
    });
  }
}

/**
 * Escalations: at `escalation.at`, a team's question still unanswered gains the
 * escalation's users. The sweep leaves a due escalation to the node that created the inquiry (and
 * holds its call, whose progress says so) for one sweep interval before taking it over.
 */
export class EscalationTimers extends DeadlineTimers {
  constructor(deps: TimerDeps) {
    super(deps, {
      name: 'escalation',
      dueAt: (inquiry) =>
        inquiry.escalation?.escalatedAt === undefined ? inquiry.escalation?.at : undefined,
      listDue: (now, limit) => deps.store.listDueEscalations(now - deps.sweepMs, limit),
      fire: async (inquiryId) => (await deps.service.escalate(inquiryId)) !== null,
    });
  }
}
