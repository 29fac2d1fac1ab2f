import { type ChatTokens, sessionTag } from '@hitl/auth';
import { planElicitation, sessionModes } from '@hitl/mcp-http';
import { isAddressedTo } from '@hitl/protocol';
import type { McpSession } from '@hitl/store';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { HumanVerdict } from '../approval/ask-human.js';
import type { NodeRest } from './node-rest.js';

/*
 * An approval the proxy holds, put in the agent's own chat as one more device (only for tools whose
 * policy says `approveInChat: true`): once the node names the approval's inquiry, the proxy reads it
 * as the person and writes one `elicitation/create` on the held call's stream, with the node's own
 * mapping (decision + reason). When the approval ends by anything but this chat's answer, the chat
 * is told to withdraw it (`notifications/cancelled`) before the call's result.
 */

/** What the proxy shares with every chat approval. */
export interface ChatApprovalDeps {
  tokens: ChatTokens;
  rest: NodeRest;
  logger: Logger;
}

/**
 * The device a chat answers from, `"<client name> (chat)"`. It travels to the node as a header
 * (`X-Device-Name`), so a character outside visible ASCII reads `?`.
 */
export function chatDeviceName(session: McpSession): string {
  return `${session.clientInfo.name.replace(/[^\x20-\x7e]/g, '?')} (chat)`;
}

/** One held call's chat: asks at most once, withdraws what it asked unless its own answer won. */
export class ChatApproval {
  private state: 'idle' | 'asking' | 'asked' | 'ended' = 'idle';
  private elicitationId: string | undefined;

  constructor(
    private readonly deps: ChatApprovalDeps,
    private readonly session: McpSession,
    private readonly userId: string,
    /** Writes one JSON-RPC message on the held call's own stream. */
    private readonly write: (message: JSONRPCMessage) => void,
  ) {}

  /** The node named the approval's inquiry: put it in the chat (once; never after the end). */
  readonly inquiry = (inquiryId: string): void => {
    if (this.state !== 'idle') return;
    this.state = 'asking';
    this.ask(inquiryId).catch((error: unknown) => {
      this.deps.logger.warn({ err: (error as Error).message, inquiryId }, 'not asked in the chat');
    });
  };

  /** The approval ended (or the hold did) with `verdict`, before the result leaves. */
  readonly settled = (verdict: HumanVerdict): void => {
    const asked = this.state === 'asked';
    this.state = 'ended';
    if (!asked || !this.elicitationId) return;
    if (verdict.outcome !== 'pending' && verdict.deviceName === chatDeviceName(this.session)) return;
    const reason =
      verdict.outcome === 'pending'
        ? 'the call stopped waiting; the approval stays open on the other devices'
        : `the approval ended (${verdict.outcome}) elsewhere`;
    try {
      this.write({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: this.elicitationId, reason },
      });
    } catch {
      // The stream is gone: nobody is left to tell.
    }
  };

  private async ask(inquiryId: string): Promise<void> {
    const { session, userId } = this;
    const modes = sessionModes(session);
    const log = { inquiryId, userId, client: session.clientInfo.name };
    if (!modes.form) return void this.deps.logger.debug(log, 'not asked in the chat: it shows no forms');
    const inquiry = await this.deps.rest.inquiry(userId, chatDeviceName(session), inquiryId);
    // The person in the chat must be in the approval's audience (a team's approval from outside it stays off).
    if (inquiry?.status !== 'pending' || !isAddressedTo(inquiry, userId)) {
      return void this.deps.logger.debug(log, 'not asked in the chat: not pending, or not theirs');
    }
    // The proxy asks in form mode only: the node's page is the way for what a form cannot carry.
    const plan = planElicitation(
      inquiry,
      { protocolVersion: session.protocolVersion, form: true, url: false },
      '',
    );
    if (plan.mode !== 'form')
      return void this.deps.logger.debug({ ...log, plan: plan.mode }, 'not asked in the chat');
    if (this.state !== 'asking') return;
    const id = this.deps.tokens.elicitationId({
      inquiryId,
      userId,
      sessionTag: sessionTag(session.sessionId),
      mode: 'form',
    });
    this.elicitationId = id;
    this.state = 'asked';
    this.write({
      jsonrpc: '2.0',
      id,
      method: 'elicitation/create',
      params: { mode: 'form', message: plan.message, requestedSchema: plan.requestedSchema },
    });
    this.deps.logger.info(log, 'approval asked in the chat');
  }
}
