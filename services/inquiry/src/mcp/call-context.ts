import type { Abortable, CallAbort, HeldCalls } from '@hitl/mcp-http';
import type { TokenClaims } from '@hitl/protocol';
import type { InquiryStore, TaskStore } from '@hitl/store';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ChatCall } from '../chat/chat-ask.js';
import type { InquiryCards } from '../chat/inquiry-card.js';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Clock } from '../core/ports.js';

/** What a tool call needs from the node and the caller. */
export interface CallContext {
  service: InquiryService;
  store: InquiryStore;
  heldCalls: HeldCalls<Abortable>;
  clock: Clock;
  claims: TokenClaims;
  tokenKey: string;
  heartbeatMs: number;
  /** Longest a held call waits: a `get_inquiry` wait, or `send_inquiry`'s hold (the service tier). */
  maxWaitMs: number;
  /** The node is draining: no new inquiries. */
  draining: () => boolean;
  /** False while the shared store is known to be unreachable: new inquiries fail fast. */
  storeReady: () => boolean;
  /** MCP task handles (tasks.ts). */
  tasks: TaskStore;
  /** The longest answer window; a task's ttl is capped to it. */
  maxAnswerWindowMs: number;
  /** How long a resolved inquiry (and so its task's result) stays readable, in ms. */
  retentionMs: number;
  /** The inquiry card (MCP Apps): what a pending result carries for it, and its card tokens. */
  cards: InquiryCards;
  /**
   * The agent's chat, when the call is made in an MCP session whose client takes elicitation (absent
   * otherwise: a sessionless call's context has no such member at all).
   */
  chat?: ChatCall;
}

/** The part of the SDK's request context a tool call uses; the direct path provides it too. */
export type CallExtra = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  'requestId' | 'sendNotification' | '_meta'
> & {
  /** A call through the SDK: the SDK's signal, which a held call follows. */
  signal?: AbortSignal;
  /** A direct call: its own abort, which a held call uses as its controller. */
  abort?: CallAbort;
};
