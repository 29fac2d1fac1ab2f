import { type ChatTokens, sessionTag } from '@hitl/auth';
import { ChatDoorBase, type ResponseMessage, replyOf, responsesIn } from '@hitl/mcp-http';
import type { TokenClaims } from '@hitl/protocol';
import type { McpSession, McpSessionStore } from '@hitl/store';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Context } from 'hono';
import type { Logger } from 'pino';
import { ChatApproval, type ChatApprovalDeps, chatDeviceName } from './chat-approval.js';
import type { NodeRest } from './node-rest.js';

/*
 * The proxy's `/mcp` hooks for the agent's chat (only when some tool's policy says
 * `approveInChat: true`): sessions for clients that declare elicitation, kept in the proxy's store
 * so any proxy node serves them, and the intake of their elicitation responses. A response may reach
 * any proxy node: its signed id names the approval's inquiry, the person and the session, and the
 * answer goes to the inquiry node's REST as that person from the device "<client name> (chat)".
 * Whatever is wrong is logged and changes nothing; the POST is 202 either way.
 */

export interface ProxyChatDeps {
  sessions: McpSessionStore;
  tokens: ChatTokens;
  rest: NodeRest;
  logger: Logger;
  clock: { now(): number };
  /** How long an unused session lives (`HITL_MCP_SESSION_TTL_MS`). */
  sessionTtlMs: number;
}

export class ProxyChatDoor extends ChatDoorBase {
  private readonly approvals: ChatApprovalDeps;

  constructor(private readonly deps: ProxyChatDeps) {
    super({ sessions: deps.sessions, clock: deps.clock, logger: deps.logger, ttlMs: deps.sessionTtlMs });
    const { logger } = deps;
    this.approvals = { tokens: deps.tokens, rest: deps.rest, logger };
  }

  async take(
    c: Context,
    body: unknown,
    claims: TokenClaims,
    session: McpSession | undefined,
  ): Promise<Response> {
    for (const message of responsesIn(body)) {
      try {
        await this.takeOne(message, claims.sub, session);
      } catch (error) {
        this.deps.logger.error(
          { err: error, userId: claims.sub },
          'an elicitation response could not be taken; the approval is unchanged',
        );
      }
    }
    return c.body(null, 202);
  }

  /** The chat a held call in `session` may put its approval in, writing with `write`. */
  approvalFor(session: McpSession, userId: string, write: (message: JSONRPCMessage) => void): ChatApproval {
    return new ChatApproval(this.approvals, session, userId, write);
  }

  private async takeOne(message: ResponseMessage, userId: string, session: McpSession | undefined) {
    const claims = this.deps.tokens.readElicitationId(message.id);
    const log = this.deps.logger.child({ userId, ...(claims ? { inquiryId: claims.inquiryId } : {}) });
    if (!claims) return log.warn('ignored a response to an unknown elicitation id');
    if (claims.userId !== userId)
      return log.warn(
        { askedUser: claims.userId },
        "ignored an elicitation response sent with another user's token",
      );
    if (!session || sessionTag(session.sessionId) !== claims.sessionTag)
      return log.warn('ignored an elicitation response from outside the session it was asked in');
    if (message.error !== undefined)
      return log.info(
        'the chat answered the elicitation with an error; the approval stays on the other devices',
      );
    const device = chatDeviceName(session);
    const inquiry = await this.deps.rest.inquiry(userId, device, claims.inquiryId);
    if (!inquiry) return log.warn('ignored an elicitation response for an approval that is gone');
    if (inquiry.status !== 'pending')
      return log.info({ status: inquiry.status }, 'a late elicitation response changes nothing');
    const reply = replyOf(inquiry, message.result);
    if (reply.kind === 'nothing') return log.info(`${reply.why}; the approval stays on the other devices`);
    if (reply.kind === 'unfit')
      return log.warn(
        { problem: reply.problem.slice(0, 500) },
        'an elicitation response did not fit; the approval stays pending',
      );
    // A decline rejects the call (with the person's reason when the form carried one).
    const response = reply.kind === 'answer' && reply.response === 'approve' ? 'approve' : 'reject';
    const answered = await this.deps.rest.answer(userId, device, inquiry.inquiryId, {
      response,
      ...(reply.reason ? { reason: reply.reason } : {}),
    });
    log.info(
      { outcome: answered.outcome, response, device, detail: answered.detail },
      'approval answered in the chat',
    );
  }
}
