import { type ChatTokens, sessionTag } from '@hitl/auth';
import { type ResponseMessage, replyOf, responsesIn } from '@hitl/mcp-http';
import { HitlError, type TokenClaims } from '@hitl/protocol';
import type { McpSession } from '@hitl/store';
import type { Logger } from 'pino';
import type { InquiryService } from '../core/inquiry-service.js';
import { chatDevice } from './chat-ask.js';

/*
 * The response to an elicitation arrives as a POST of its own, at whichever node the client's
 * connection reaches: the node that wrote the `elicitation/create` need not be the one that reads
 * the answer. The signed id names the inquiry, the person asked and the session, so any node checks
 * it against the token and the session that carry it, and settles through the one first-answer-wins
 * step every device uses. Whatever is wrong is logged and changes nothing; the POST is 202 either way
 * (a JSON-RPC response has no reply).
 */

export interface ResponseIntakeDeps {
  service: InquiryService;
  tokens: ChatTokens;
  logger: Logger;
}

/** Takes every response in `body` (a response-only POST) as the token's user; never throws. */
export async function takeResponses(
  deps: ResponseIntakeDeps,
  body: unknown,
  claims: TokenClaims,
  session: McpSession | undefined,
): Promise<void> {
  for (const message of responsesIn(body)) {
    try {
      await takeResponse(deps, message, claims, session);
    } catch (error) {
      deps.logger.error({ err: error, userId: claims.sub }, 'an elicitation response could not be taken');
    }
  }
}

async function takeResponse(
  deps: ResponseIntakeDeps,
  message: ResponseMessage,
  claims: TokenClaims,
  session: McpSession | undefined,
): Promise<void> {
  const userId = claims.sub;
  const claimsOfId = deps.tokens.readElicitationId(message.id);
  const log = deps.logger.child({ userId, ...(claimsOfId ? { inquiryId: claimsOfId.inquiryId } : {}) });
  if (!claimsOfId) return log.warn('ignored a response to an unknown elicitation id');
  if (claimsOfId.userId !== userId)
    return log.warn(
      { askedUser: claimsOfId.userId },
      "ignored an elicitation response sent with another user's token",
    );
  if (!session || sessionTag(session.sessionId) !== claimsOfId.sessionTag)
    return log.warn('ignored an elicitation response from outside the session it was asked in');
  if (message.error !== undefined)
    return log.info(
      'the chat client answered the elicitation with an error; the question stays on the other devices',
    );
  if (claimsOfId.mode === 'url')
    return log.info('a URL elicitation was acknowledged; the answer comes from the page');
  const inquiry = await deps.service.find(claimsOfId.inquiryId, userId);
  if (!inquiry) return log.warn('ignored an elicitation response for an inquiry that is gone');
  if (inquiry.status !== 'pending')
    return log.info({ status: inquiry.status }, 'a late elicitation response changes nothing');
  const reply = replyOf(inquiry, message.result);
  if (reply.kind === 'nothing') return log.info(`${reply.why}; the question stays on the other devices`);
  if (reply.kind === 'unfit')
    return log.warn(
      { problem: reply.problem.slice(0, 500) },
      'an elicitation response did not fit; the inquiry stays pending',
    );
  const device = chatDevice(session);
  try {
    const reason = reply.reason ? { reason: reply.reason } : {};
    const ending =
      reply.kind === 'answer'
        ? { type: 'answer' as const, response: reply.response, device, ...reason }
        : { type: 'refusal' as const, device, ...reason };
    const outcome = await deps.service.settle(inquiry.inquiryId, userId, ending, Promise.resolve(inquiry));
    log.info({ outcome: outcome.kind, reply: reply.kind, device: device.deviceName }, 'answered in the chat');
  } catch (error) {
    if (!(error instanceof HitlError)) throw error;
    log.warn(
      { code: error.code, problem: error.message.slice(0, 500) },
      'an elicitation response was refused; the inquiry is unchanged',
    );
  }
}
