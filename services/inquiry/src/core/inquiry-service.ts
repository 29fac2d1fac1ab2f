import type { Decision } from '@hitl/decisions';
import {
  type Deadlines,
  type Directory,
  EMPTY_DIRECTORY,
  HitlError,
  type Inquiry,
  isAddressedTo,
  type Resolution,
  type ResponseShape,
  responseProblem,
  type SendInquiryInput,
  type TimeoutTiers,
  type Vote,
} from '@hitl/protocol';
import {
  type InquiryStore,
  newInquiryId,
  type ResolveResult,
  type StepAudit,
  type VoteResult,
  type WaitOptions,
} from '@hitl/store';
import type { Logger } from 'pino';
import { endRecord, escalationRecord, voteRecord } from '../audit/audit-records.js';
import type { Auditor } from '../audit/auditor.js';
import { resolveAudience } from '../directory/audience.js';
import { checkAskLimits, checkQuorum, inquiryContent, planEscalation, stripUndefined } from './ask-input.js';
import { computeDeadlines } from './deadlines.js';
import { decisionRecordFor } from './decision-record.js';
import { type DecisionDeps, FallbackRunner } from './fallback.js';
import { type Ending, type PresetTexts, resolutionFor } from './outcomes.js';
import type { Clock, InquiryEvents, InquiryMetrics } from './ports.js';
import { type AnswerCheckDeps, checkAnswer, checkDeviceTimer } from './settle-checks.js';

/** The node's parts the service uses (`passkeys`, `standing`: see {@link AnswerCheckDeps}). */
export interface InquiryServiceDeps extends Omit<AnswerCheckDeps, 'maxStandingMs'> {
  store: InquiryStore;
  clock: Clock;
  logger: Logger;
  events: InquiryEvents;
  metrics: InquiryMetrics;
  config: {
    tiers: TimeoutTiers;
    maxAnswerWindowMs: number;
    maxPendingPerUser: number;
    texts: PresetTexts;
    /** `HITL_MAX_STANDING_MS`; absent: 24 h. */
    maxStandingMs?: number;
  };
  /** Fallback decisions and the audit log; without them every ending writes its preset outcome. */
  decisions?: DecisionDeps;
  /** The directory in force (read at each ask, so a reload applies to the next question). */
  directory?: { readonly current: Directory };
  /** The audit chain: each decision's record goes with its store step, then into the chain. */
  audit?: Pick<Auditor, 'commit'>;
}

/**
 * What a node that handed an inquiry to its devices keeps of it (none of it ever changes): what an
 * answer is checked against, the quorum, its service deadline, and for a question with an audience a
 * guess at the asker's user (the view names only the agent token's subject).
 */
export interface RelayedInquiry extends ResponseShape {
  quorum?: number;
  askerGuess?: string;
  serviceAt: number;
}

/** Who asks: the user the question is for, and the agent token that asked. */
export interface AskerRef {
  userId: string;
  tokenSubject: string;
  name?: string;
}

/**
 * What settling an inquiry did: the resolve's outcome, or for a vote on a quorum approval that did not
 * decide it, `counted` (kept; still pending) or `already_voted` (this person had voted).
 */
export type SettleResult = ResolveResult | Extract<VoteResult, { kind: 'counted' | 'already_voted' }>;

/** How long a user over the pending cap is told to wait before asking again. */
const PENDING_RETRY_MS = 5000;

/**
 * The inquiry use cases every door shares (MCP, REST, Socket.IO, timers): ask, settle, wait.
 * Stateless: everything lives in the store; events only inform.
 */
export class InquiryService {
  private readonly fallback: FallbackRunner | undefined;

  constructor(private readonly deps: InquiryServiceDeps) {
    const { decisions, store, clock, logger } = deps;
    this.fallback = decisions && new FallbackRunner({ ...decisions, store, clock, logger });
  }

  /**
   * Creates the inquiry (or re-attaches to the one the idempotency key names). `call`: the MCP call
   * that will wait on it, which the store remembers with the create (for a cancel on another node)
   * for `ttlMs(deadlines)`; not when it re-attaches (`created: false`).
   */
  async ask(
    asker: AskerRef,
    input: SendInquiryInput,
    options: { call?: { key: string; ttlMs(deadlines: Deadlines): number } } = {},
  ): Promise<{ inquiry: Inquiry; created: boolean }> {
    const { store, clock, config, events, metrics } = this.deps;
    checkAskLimits(input, config);
    const addressed =
      input.audience === undefined
        ? undefined
        : resolveAudience(this.deps.directory?.current ?? EMPTY_DIRECTORY, asker.userId, input.audience);
    checkQuorum(input, addressed?.audience.length ?? 1);
    const now = clock.now();
    const deadlines = computeDeadlines(now, config.tiers, input.timeoutMs, input.answerWithinMs);
    const escalation = addressed && planEscalation(addressed, now, deadlines.serviceAt);
    const content = inquiryContent(input);
    const result = await store.create(
      {
        ...stripUndefined(content),
        inquiryId: newInquiryId(),
        userId: asker.userId,
        ...(addressed
          ? { audience: addressed.audience, ...(addressed.team ? { team: addressed.team } : {}) }
          : {}),
        ...(escalation ? { escalation } : {}),
        asker: stripUndefined({ tokenSubject: asker.tokenSubject, name: asker.name }),
        ...(input.idempotencyKey ? { idempotencyKey: input.idempotencyKey } : {}),
        createdAt: now,
        deadlines,
      },
      {
        maxPendingPerUser: config.maxPendingPerUser,
        ...(options.call ? { call: { key: options.call.key, ttlMs: options.call.ttlMs(deadlines) } } : {}),
      },
    );
    if (result.kind === 'limit') {
      throw new HitlError(
        'too_many_pending',
        `user ${asker.userId} already has ${result.pending} pending inquiries (limit ${config.maxPendingPerUser}); retry after some are answered`,
        PENDING_RETRY_MS,
      );
    }
    if (result.created) {
      metrics.created();
      events.created(result.inquiry);
      this.info(result.inquiry, { kind: result.inquiry.kind }, 'inquiry created');
      void this.fallback?.suggest(result.inquiry, (updated) => events.updated?.(updated));
    }
    return { inquiry: result.inquiry, created: result.created };
  }

  /**
   * The inquiry if it exists and (when `userId` is given) is addressed to that user: what a person's
   * devices, REST calls and answer links may see and settle.
   */
  async find(inquiryId: string, userId?: string): Promise<Inquiry | null> {
    const inquiry = await this.deps.store.get(inquiryId);
    return inquiry && (userId === undefined || isAddressedTo(inquiry, userId)) ? inquiry : null;
  }

  /** The inquiry if it exists and `userId`'s agent asked it: what MCP calls (get_inquiry, cancel, tasks) may read. */
  async findAsked(inquiryId: string, userId: string): Promise<Inquiry | null> {
    const inquiry = await this.deps.store.get(inquiryId);
    return inquiry && inquiry.userId === userId ? inquiry : null;
  }

  async findByKey(userId: string, idempotencyKey: string): Promise<Inquiry | null> {
    return this.deps.store.getByKey(userId, idempotencyKey);
  }

  /**
   * Ends an inquiry the way `ending` says, if it is still pending. `userId` scopes the call to one
   * user (another user's inquiry is not found); `undefined` is the service itself.
   * `found` is the inquiry as `find(inquiryId, userId)` read it, when the caller started that read
   * early (alongside its rate-limit check); the resolve itself still decides who wins.
   * @throws HitlError `not_found`, `invalid_input` (answer does not fit), `too_early` (device timer).
   */
  async settle(
    inquiryId: string,
    userId: string | undefined,
    ending: Ending,
    found?: Promise<Inquiry | null>,
  ): Promise<SettleResult> {
    const { clock, config } = this.deps;
    // The asker's agent cancels; the people asked answer, refuse and report their timers.
    const inquiry = await (found ??
      (ending.type === 'cancel' && userId !== undefined
        ? this.findAsked(inquiryId, userId)
        : this.find(inquiryId, userId)));
    if (!inquiry) throw new HitlError('not_found', `no inquiry ${inquiryId}`);
    if (inquiry.status !== 'pending') return { kind: 'lost', inquiry };
    // Who answered, among the people asked (resolvedBy.userId).
    if ('device' in ending && userId !== undefined)
      ending = { ...ending, device: { ...ending.device, userId } };
    const now = clock.now();
    if (ending.type === 'answer') {
      const { passkeys, standing } = this.deps;
      ending = await checkAnswer(inquiry, ending, {
        maxStandingMs: config.maxStandingMs,
        passkeys,
        standing,
      });
    }
    if (ending.type === 'device-timer') checkDeviceTimer(inquiry, now);
    // A quorum approval counts each person's answer as a vote; the deciding one ends it.
    if (inquiry.quorum !== undefined && ending.type === 'answer') return this.vote(inquiry, ending, now);
    const { fallback } = this;
    const plan = fallback?.plan(inquiry, ending);
    if (fallback && plan) {
      // A person's reason stays with their refusal, whatever the fallback decides after it.
      const reason = ending.type === 'refusal' ? ending.reason : undefined;
      const settled = ending;
      return fallback.run(inquiry, plan, (resolution, decision) =>
        this.write(inquiry, settled, reason ? { ...resolution, reason } : resolution, decision),
      );
    }
    return this.write(inquiry, ending, resolutionFor(ending, config.texts, now));
  }

  /**
   * A person's answer to an inquiry this node relayed to their device, without reading it first: the
   * answer is checked against what was relayed (it never changes), and the resolve itself checks, in
   * its one step, that the inquiry exists, is addressed to `userId` (escalation included) and is
   * pending. What that cannot settle the way `settle` would takes `settle`: a quorum approval (a
   * vote), an answer that does not fit (whose error comes after not-found and already-resolved), and
   * any approval (its audit record names the action, and a passkey approval is checked against it).
   */
  async answerRelayed(
    inquiryId: string,
    userId: string,
    ending: Extract<Ending, { type: 'answer' }>,
    relayed: RelayedInquiry,
  ): Promise<SettleResult> {
    const adds = ending.arguments !== undefined || ending.allowFor !== undefined;
    if (
      adds ||
      relayed.quorum !== undefined ||
      relayed.kind === 'approval' ||
      responseProblem(relayed, ending.response) !== null
    ) {
      return this.settle(inquiryId, userId, ending);
    }
    const answer = { ...ending, device: { ...ending.device, userId } };
    const resolution = resolutionFor(answer, this.deps.config.texts, this.deps.clock.now());
    // Without an audience the inquiry is addressed to its asker's user alone: `userId`, once the
    // resolve's check passes. The key (if any) is unknown: the store then clears it in a second step.
    const asker = { userId: relayed.askerGuess ?? userId };
    const audit = this.stepAudit(() => ({ record: endRecord({ inquiryId }, resolution, answer) }));
    const result = await this.deps.store.resolve(inquiryId, resolution, asker, userId, audit);
    if (result.kind === 'won') await this.announce(result.inquiry, answer, undefined, audit);
    return result;
  }

  /**
   * The atomic resolve (first writer wins); the winner informs devices and metrics and returns once
   * the audit record is written. `read` is the inquiry as settle read it: its asker lets the store
   * drop the indexes in the same step.
   */
  private async write(
    read: Inquiry,
    ending: Ending,
    resolution: Resolution,
    decision?: Decision,
  ): Promise<ResolveResult> {
    const audit = this.stepAudit(() => ({ record: endRecord(read, resolution, ending, decision) }));
    const result = await this.deps.store.resolve(read.inquiryId, resolution, read, undefined, audit);
    if (result.kind === 'won' && ending.type === 'answer') await this.grantStanding(result.inquiry, ending);
    if (result.kind === 'won') await this.announce(result.inquiry, ending, decision, audit);
    return result;
  }

  /** The standing approval a winning approve asked for; a failure to make it leaves the approval as it is. */
  private async grantStanding(inquiry: Inquiry, answer: Extract<Ending, { type: 'answer' }>): Promise<void> {
    try {
      await this.deps.standing?.grant(inquiry, answer);
    } catch (error) {
      this.log(inquiry).error({ err: error }, 'standing approval not made');
    }
  }

  /** A step's audit records, when this node keeps the chain. */
  private stepAudit(make: () => StepAudit): StepAudit | undefined {
    return this.deps.audit ? make() : undefined;
  }

  /** One person's vote on a quorum approval, in the store's one atomic step. */
  private async vote(
    inquiry: Inquiry,
    ending: Extract<Ending, { type: 'answer' }>,
    now: number,
  ): Promise<SettleResult> {
    const { device } = ending;
    const vote: Vote = {
      userId: device.userId ?? inquiry.userId,
      ...(device.deviceId ? { deviceId: device.deviceId } : {}),
      ...(device.deviceName ? { deviceName: device.deviceName } : {}),
      vote: ending.response === 'approve' ? 'approve' : 'reject',
      at: now,
    };
    const decides = resolutionFor(ending, this.deps.config.texts, now);
    const audit = this.stepAudit(() => ({
      record: voteRecord(inquiry, vote, ending),
      end: endRecord(inquiry, decides, ending),
    }));
    const result = await this.deps.store.vote(inquiry.inquiryId, vote, decides, audit);
    if (result.kind === 'won') await this.announce(result.inquiry, ending, undefined, audit);
    if (result.kind === 'counted') {
      await this.deps.audit?.commit(audit ? [audit.record] : []);
      this.info(result.inquiry, { voter: vote.userId, vote: vote.vote }, 'quorum vote counted');
      this.deps.events.updated?.(result.inquiry);
    }
    return result;
  }

  /**
   * Adds the planned escalation's users if the inquiry is still pending and has not escalated yet
   * (any node may try; the store lets one do it). Returns the escalated inquiry when this call did it.
   */
  async escalate(inquiryId: string): Promise<Inquiry | null> {
    const at = this.deps.clock.now();
    // Its record names who was added: read first (escalations are rare: team questions only).
    const current = this.deps.audit ? await this.deps.store.get(inquiryId) : null;
    const audit = current ? { record: escalationRecord(current, at) } : undefined;
    const escalated = await this.deps.store.escalate(inquiryId, at, audit);
    if (!escalated) return null;
    await this.deps.audit?.commit(audit ? [audit.record] : []);
    this.info(escalated, { escalation: escalated.escalation }, 'inquiry escalated');
    this.deps.events.escalated?.(escalated);
    return escalated;
  }

  /**
   * The winner of a resolve informs devices and metrics, then writes the audit record. The record is
   * written once this turn's callbacks are done, so the waiting call (woken by the store) resumes
   * first; the caller's ack waits for it, so every acknowledged answer has its record (even after a
   * kill -9 of an embedded node, whose log commits each record before its append returns).
   */
  private async announce(
    inquiry: Inquiry,
    ending: Ending,
    decision?: Decision,
    step?: StepAudit,
  ): Promise<void> {
    const { events, metrics } = this.deps;
    metrics.resolved(inquiry);
    events.resolved(inquiry);
    this.info(inquiry, { status: inquiry.status, by: inquiry.resolvedBy?.kind }, 'inquiry resolved');
    const audit = this.fallback?.log;
    if (!audit && !step) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    // The chain's record was written with the step; it is in the chain before the caller's ack.
    if (step) await this.deps.audit?.commit(step.end ? [step.record, step.end] : [step.record]);
    if (!audit) return;
    try {
      await audit.append(decisionRecordFor(inquiry, ending, decision));
    } catch (error) {
      this.log(inquiry).warn({ err: error }, 'decision audit record not written');
    }
  }

  /** Waits for the inquiry to end, the signal to abort, or the deadline; returns its state then. */
  wait(inquiryId: string, signal: WaitOptions['signal'], deadline: number): Promise<Inquiry | null> {
    return this.deps.store.waitForResolution(inquiryId, { signal, deadline });
  }

  private log(inquiry: Inquiry): Logger {
    return this.deps.logger.child({ inquiryId: inquiry.inquiryId, userId: inquiry.userId });
  }

  /**
   * An info line with the inquiry's ids; no child logger when info is off (a pino child, built for
   * every created and every resolved inquiry, is ~2 KB of garbage per call on the holding node).
   */
  private info(inquiry: Inquiry, fields: object, message: string): void {
    if (this.deps.logger.isLevelEnabled('info')) this.log(inquiry).info(fields, message);
  }
}
