import { HitlError, type Inquiry, isAddressedTo } from '@hitl/protocol';
import type { Logger } from 'pino';
import type { InquiryService, SettleResult } from '../core/inquiry-service.js';
import type { DeviceRef, Ending } from '../core/outcomes.js';
import type { DirectoryHolder } from '../directory/directory.js';
import {
  type BlockActions,
  type InputErrors,
  type Interaction,
  readAnswer,
  readModal,
  readReason,
  type ViewSubmission,
} from './interaction-payload.js';
import type { KeyedQueue } from './keyed-queue.js';
import { outcomeLine } from './message-blocks.js';
import { answerModal, type ModalMeta, reasonModal } from './modal-views.js';
import { type MessageAction, parseAction } from './slack-actions.js';
import type { SlackApi } from './slack-api.js';
import type { SlackDeliveries } from './slack-deliveries.js';
import { userOfMember } from './slack-targets.js';

export interface InteractionDeps {
  service: InquiryService;
  directory: DirectoryHolder;
  api: SlackApi;
  deliveries: SlackDeliveries;
  /** The replies only the clicker sees: bounded, off the request (a full queue drops the reply). */
  replies: KeyedQueue;
  logger: Logger;
}

/** What a request did (the `hitl-slack-outcome` header; Slack itself reads only the body). */
export type Outcome =
  | 'answered'
  | 'counted'
  | 'modal_opened'
  | 'already_voted'
  | 'ended'
  | 'not_in_audience'
  | 'unknown_member'
  | 'not_found'
  | 'invalid_answer'
  | 'page_opened';

/** The reply: the outcome, and for a modal submission what Slack should show in it (errors). */
export interface InteractionReply {
  outcome: Outcome;
  body?: { response_action: 'errors'; errors: InputErrors };
}

/** The device every Slack answer is made from. */
const SLACK_DEVICE = 'Slack';

/**
 * What a click or a modal submission does, once the request is known to come from Slack: the Slack
 * member is mapped through the directory to a user, who must be one of the people asked; then the
 * answer is that user's, from the device "Slack", through the same settle as every other door
 * (first answer wins; a quorum counts one vote per person). A refusal is told to the clicker alone
 * (an ephemeral message, or the modal's error) and leaves the message as it is.
 */
export class SlackInteractions {
  constructor(private readonly deps: InteractionDeps) {}

  handle(interaction: Interaction): Promise<InteractionReply> {
    return interaction.type === 'block_actions' ? this.click(interaction) : this.submit(interaction);
  }

  private async click(payload: BlockActions): Promise<InteractionReply> {
    const [raw] = payload.actions;
    const action = raw && parseAction(raw.action_id, raw.value ?? raw.selected_option?.value ?? undefined);
    if (!action)
      throw new HitlError('invalid_input', `actions.0.action_id: not one of ours (${raw?.action_id})`);
    // The link button to the inquiry's page: Slack opened it in the browser; nothing to do here.
    if (action.kind === 'openPage') return { outcome: 'page_opened' };
    const member = payload.user.id;
    const channel = payload.container?.channel_id ?? payload.channel?.id;
    const tell = (text: string, inquiryId: string) => this.ephemeral(channel, member, text, inquiryId);
    const who = await this.person(member, action.inquiryId);
    if ('refused' in who) {
      tell(who.text, action.inquiryId);
      return { outcome: who.refused };
    }
    const { inquiry, userId } = who;
    if (inquiry.status !== 'pending') {
      tell(this.endedText(inquiry), inquiry.inquiryId);
      return { outcome: 'ended' };
    }
    checkFits(action, inquiry);
    if (action.kind === 'approve' || action.kind === 'option') {
      const response = action.kind === 'option' ? (inquiry.options?.[action.index] ?? '') : 'approve';
      const result = await this.settle(inquiry, userId, member, {
        type: 'answer',
        response,
        device: device(member),
      });
      if (result.outcome !== 'answered' && result.outcome !== 'counted') tell(result.text, inquiry.inquiryId);
      return { outcome: result.outcome };
    }
    if (!payload.trigger_id) throw new HitlError('invalid_input', 'trigger_id: required to open a modal');
    const meta: ModalMeta = { inquiryId: inquiry.inquiryId, ...(channel ? { channel } : {}) };
    const view =
      action.kind === 'answer' ? answerModal(inquiry, meta) : reasonModal(action.kind, inquiry, meta);
    const triggerId = payload.trigger_id;
    await this.deps.deliveries.record(
      { event: 'slack.modal', url: `slack:${member}`, inquiryId: inquiry.inquiryId, userId },
      (onAttempt) => this.deps.api.openView(triggerId, view, onAttempt),
    );
    return { outcome: 'modal_opened' };
  }

  private async submit(payload: ViewSubmission): Promise<InteractionReply> {
    const modal = readModal(payload.view);
    if (!modal)
      throw new HitlError(
        'invalid_input',
        'view: not a modal of this service (callback_id, private_metadata)',
      );
    const member = payload.user.id;
    const firstBlock = Object.keys(payload.view.state.values)[0];
    const refuse = (outcome: Outcome, text: string): InteractionReply =>
      firstBlock
        ? { outcome, body: { response_action: 'errors', errors: { [firstBlock]: text.slice(0, 150) } } }
        : { outcome };
    const who = await this.person(member, modal.meta.inquiryId);
    if ('refused' in who) {
      this.ephemeral(modal.meta.channel, member, who.text, modal.meta.inquiryId);
      return refuse(who.refused, who.text);
    }
    const { inquiry, userId } = who;
    if (inquiry.status !== 'pending') return refuse('ended', this.endedText(inquiry, false));
    const values = payload.view.state.values;
    let ending: Ending & { reason?: string };
    if (modal.kind === 'answer') {
      if (inquiry.kind === 'approval')
        throw new HitlError('invalid_input', 'view: an approval has no answer modal');
      const read = readAnswer(inquiry, values);
      if ('errors' in read)
        return { outcome: 'invalid_answer', body: { response_action: 'errors', errors: read.errors } };
      ending = { type: 'answer', response: read.response, device: device(member) };
    } else {
      const read = readReason(values);
      if ('errors' in read)
        return { outcome: 'invalid_answer', body: { response_action: 'errors', errors: read.errors } };
      const reason = read.reason === undefined ? {} : { reason: read.reason };
      if (modal.kind === 'reject' && inquiry.kind !== 'approval')
        throw new HitlError('invalid_input', 'view: only an approval is rejected');
      ending =
        modal.kind === 'reject'
          ? { type: 'answer', response: 'reject', device: device(member), ...reason }
          : { type: 'refusal', device: device(member), ...reason };
    }
    const result = await this.settle(inquiry, userId, member, ending);
    return result.outcome === 'answered' || result.outcome === 'counted'
      ? { outcome: result.outcome }
      : refuse(result.outcome, result.text);
  }

  /** The directory user behind a Slack member, and the inquiry, if it is addressed to them. */
  private async person(
    member: string,
    inquiryId: string,
  ): Promise<{ inquiry: Inquiry; userId: string } | { refused: Outcome; text: string }> {
    const userId = userOfMember(this.deps.directory.current, member);
    if (!userId) {
      return {
        refused: 'unknown_member',
        text: 'Your Slack account is not linked to anyone in this service’s directory, so your click did not count. Ask an operator to add your member id.',
      };
    }
    const inquiry = await this.deps.service.find(inquiryId);
    if (!inquiry) return { refused: 'not_found', text: 'This question is no longer here.' };
    if (!isAddressedTo(inquiry, userId)) {
      return {
        refused: 'not_in_audience',
        text: 'This question is not addressed to you, so your click did not count.',
      };
    }
    return { inquiry, userId };
  }

  private async settle(
    inquiry: Inquiry,
    userId: string,
    member: string,
    ending: Ending,
  ): Promise<{ outcome: Outcome; text: string }> {
    let result: SettleResult;
    try {
      result = await this.deps.service.settle(inquiry.inquiryId, userId, ending, Promise.resolve(inquiry));
    } catch (error) {
      if (error instanceof HitlError && (error.code === 'invalid_input' || error.code === 'too_early')) {
        return { outcome: 'invalid_answer', text: `Not taken: ${error.message}` };
      }
      throw error;
    }
    this.deps.logger.info(
      { inquiryId: inquiry.inquiryId, userId, member, result: result.kind },
      'slack answer',
    );
    switch (result.kind) {
      case 'won':
        return { outcome: 'answered', text: '' };
      case 'counted':
        return { outcome: 'counted', text: '' };
      case 'already_voted':
        return { outcome: 'already_voted', text: 'You have already voted on this approval.' };
      case 'not_found':
        return { outcome: 'not_found', text: 'This question is no longer here.' };
      default:
        return { outcome: 'ended', text: this.endedText(result.inquiry) };
    }
  }

  /** Who ended it, for the clicker: mrkdwn for a message, plain for a modal's error. */
  private endedText(inquiry: Inquiry, rich = true): string {
    const nameOf = (userId: string) => this.deps.directory.user(userId)?.name ?? userId;
    const by = inquiry.resolvedBy;
    if (!rich) {
      const person = by?.userId
        ? ` by ${nameOf(by.userId)}${by.deviceName ? ` on ${by.deviceName}` : ''}`
        : '';
      return `Already ${inquiry.status.replace('_', ' ')}${person}.`;
    }
    return `This question has already ended: ${outcomeLine(inquiry, { nameOf })}`;
  }

  private ephemeral(channel: string | undefined, member: string, text: string, inquiryId: string): void {
    if (!channel) return;
    const userId = userOfMember(this.deps.directory.current, member) ?? `slack:${member}`;
    // Queued, not awaited: Slack wants the answer to its request within 3 s, whatever its API does.
    const queued = this.deps.replies.push(member, async () => {
      await this.deps.deliveries.record(
        { event: 'slack.ephemeral', url: `slack:${channel}`, inquiryId, userId },
        (onAttempt) => this.deps.api.postEphemeral(channel, member, text, onAttempt),
      );
    });
    if (!queued) this.deps.logger.warn({ inquiryId, member }, 'slack: reply queue full, dropped');
  }
}

function device(member: string): DeviceRef {
  return { deviceId: `slack:${member}`, deviceName: SLACK_DEVICE };
}

/** A control must fit the inquiry it names (a button of ours on another kind of question is not). */
function checkFits(action: MessageAction, inquiry: Inquiry): void {
  const approval = inquiry.kind === 'approval';
  const fits =
    action.kind === 'approve' || action.kind === 'reject'
      ? approval
      : action.kind === 'option'
        ? !approval && !inquiry.questions && action.index < (inquiry.options?.length ?? 0)
        : !approval;
  if (!fits)
    throw new HitlError('invalid_input', `actions.0: ${action.kind} does not fit this ${inquiry.kind}`);
}
