import { HitlError, type Inquiry, LIMITS } from '@hitl/protocol';
import { newStandingId, type StandingApproval, type StandingStore } from '@hitl/store';
import type { Logger } from 'pino';
import type { Ending } from './outcomes.js';
import type { Clock } from './ports.js';

type Answer = Extract<Ending, { type: 'answer' }>;

/**
 * Makes the standing approvals people ask for with an approve (`allowFor`): the room is checked
 * before the answer is written (a full asker's answer is refused, nothing written); the approval is
 * made only by the answer that won.
 */
export class StandingGrants {
  constructor(private readonly deps: { store: StandingStore; clock: Clock; logger: Logger }) {}

  /** @throws HitlError `invalid_input` when the asker already has the most live standing approvals. */
  async checkRoom(inquiry: Inquiry, answer: Answer): Promise<void> {
    if (!answer.allowFor) return;
    const live = await this.deps.store.countFor(inquiry.userId, this.deps.clock.now());
    if (live >= LIMITS.standingPerUser) {
      throw new HitlError(
        'invalid_input',
        `allowFor: ${inquiry.userId} already has ${live} standing approvals (at most ${LIMITS.standingPerUser}); end some first`,
      );
    }
  }

  /** The standing approval the winning `answer` asked for (none when it asked for none). */
  async grant(inquiry: Inquiry, answer: Answer): Promise<StandingApproval | undefined> {
    const { allowFor } = answer;
    if (!allowFor || !inquiry.action) return undefined;
    const now = this.deps.clock.now();
    const approval = await this.deps.store.create({
      id: newStandingId(),
      userId: inquiry.userId,
      server: inquiry.action.server,
      tool: inquiry.action.tool,
      ...(allowFor.match ? { match: allowFor.match } : {}),
      until: now + allowFor.minutes * 60_000,
      createdBy: answer.device.userId ?? inquiry.userId,
      createdAt: now,
      inquiryId: inquiry.inquiryId,
    });
    this.deps.logger.info(
      { standingId: approval.id, inquiryId: inquiry.inquiryId, until: approval.until },
      'standing approval made',
    );
    return approval;
  }
}
