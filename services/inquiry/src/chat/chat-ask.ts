import { type ChatTokens, sessionTag } from '@hitl/auth';
import { planElicitation, sessionModes } from '@hitl/mcp-http';
import { type Inquiry, isAddressedTo } from '@hitl/protocol';
import type { McpSession } from '@hitl/store';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { JSONRPCMessage, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';

/*
 * Elicitation as one more device: while a call is held in a session whose client takes
 * elicitation, the node writes one `elicitation/create` on that call's own stream (right after the
 * first progress notification), and when the hold ends by anything but this chat's own answer it
 * tells the client to withdraw it (`notifications/cancelled`) before the result. The response
 * comes back as its own POST, to any node (response-intake.ts).
 */

/** The part of a held call's context the chat writes through (a `CallExtra`). */
export type HeldStream = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  'requestId' | 'sendNotification'
>;

/** What the node shares with every chat call. */
export interface ChatAskDeps {
  tokens: ChatTokens;
  /** `HITL_ELICITATION` is not `off`. */
  enabled: boolean;
  /** Where people reach the web terminal (`HITL_PUBLIC_URL`, else the node's own address). */
  publicUrl: () => string;
  logger: Logger;
}

/** A call held in a session that takes elicitation: the session and how to write on the call's stream. */
export interface ChatCall {
  deps: ChatAskDeps;
  session: McpSession;
  /** Writes one JSON-RPC message on the held call's own SSE stream. */
  write(extra: HeldStream, message: JSONRPCMessage): void;
}

/** The device a chat answers from: `"<clientInfo.name> (chat)"`, with an id that names no secret. */
export function chatDevice(session: McpSession): { deviceId: string; deviceName: string } {
  return {
    deviceId: `chat:${sessionTag(session.sessionId)}`,
    deviceName: `${session.clientInfo.name} (chat)`,
  };
}

/**
 * Puts `inquiry` to the person in the chat of `chat`'s session, if it may: elicitation is on, the
 * asker allowed it (`askInChat`), the token's user `userId` is in its audience, it is pending and it
 * fits the chat (a form, or the page's URL). Returns what to do when the hold ends, or undefined.
 */
export function askInChat(
  chat: ChatCall,
  userId: string,
  inquiry: Inquiry,
  extra: HeldStream,
): OpenElicitation | undefined {
  const { deps, session } = chat;
  if (!deps.enabled || inquiry.status !== 'pending') return undefined;
  if (inquiry.askInChat === false) return undefined;
  // A team's question from an asker outside the team stays off the asker's chat.
  if (!isAddressedTo(inquiry, userId)) return undefined;
  const pageUrl = `${deps.publicUrl().replace(/\/+$/, '')}/i/${encodeURIComponent(inquiry.inquiryId)}`;
  const client = { protocolVersion: session.protocolVersion, ...sessionModes(session) };
  const plan = planElicitation(inquiry, client, pageUrl);
  const log = { inquiryId: inquiry.inquiryId, userId, client: session.clientInfo.name };
  if (plan.mode === 'none') {
    deps.logger.debug({ ...log, why: plan.why }, 'not asked in the chat');
    return undefined;
  }
  const id = deps.tokens.elicitationId({
    inquiryId: inquiry.inquiryId,
    userId,
    sessionTag: sessionTag(session.sessionId),
    mode: plan.mode,
  });
  const params =
    plan.mode === 'form'
      ? { mode: 'form', message: plan.message, requestedSchema: plan.requestedSchema }
      : { mode: 'url', message: plan.message, url: plan.url, elicitationId: id };
  chat.write(extra, { jsonrpc: '2.0', id, method: 'elicitation/create', params });
  deps.logger.info({ ...log, mode: plan.mode }, 'asked in the chat');
  return new OpenElicitation(chat, extra, id, plan.mode);
}

/** An elicitation sent on a held call, until the hold ends. */
export class OpenElicitation {
  private readonly deviceId: string;

  constructor(
    private readonly chat: ChatCall,
    private readonly extra: HeldStream,
    readonly id: string,
    readonly mode: 'form' | 'url',
  ) {
    this.deviceId = chatDevice(chat.session).deviceId;
  }

  /**
   * The hold ended with `latest` (before its result is written): a URL elicitation hears that the
   * inquiry is over; any elicitation the chat did not itself end is withdrawn.
   */
  readonly settled = (latest: Inquiry | null): Inquiry | null => {
    if (this.mode === 'url' && latest?.status !== 'pending') {
      this.send({ method: 'notifications/elicitation/complete', params: { elicitationId: this.id } });
    }
    if (latest?.resolvedBy?.deviceId !== this.deviceId) {
      const reason =
        latest === null
          ? 'the question no longer exists'
          : latest.status === 'pending'
            ? 'the call stopped waiting; the question stays open on the other devices'
            : `the question ended (${latest.status}) elsewhere`;
      this.send({ method: 'notifications/cancelled', params: { requestId: this.id, reason } });
    }
    return latest;
  };

  /** The hold failed: the chat's question is withdrawn before the error goes out. */
  readonly failed = (error: unknown): never => {
    this.send({
      method: 'notifications/cancelled',
      params: { requestId: this.id, reason: 'the call failed' },
    });
    throw error;
  };

  private send(notification: { method: string; params: Record<string, unknown> }): void {
    try {
      this.chat.write(this.extra, { jsonrpc: '2.0', ...notification });
    } catch {
      // The stream is gone: nobody is left to tell.
    }
  }
}
