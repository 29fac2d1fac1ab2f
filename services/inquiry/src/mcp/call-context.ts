import type { TokenClaims } from '@hitl/protocol';
import type { InquiryStore, TaskStore } from '@hitl/store';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Clock } from '../core/ports.js';
import type { CallAbort, CallSignal } from './call-abort.js';
import type { HeldCalls } from './held-calls.js';

/** What a tool call needs from the node and the caller. */
export interface CallContext {
  service: InquiryService;
  store: InquiryStore;
  heldCalls: HeldCalls;
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
}

/** The part of the SDK's request context a tool call uses; the direct path provides it too. */
export type CallExtra = Pick<
  RequestHandlerExtra<ServerRequest, ServerNotification>,
  'requestId' | 'sendNotification' | '_meta'
> & {
  /** The SDK's `AbortSignal`, or the direct path's own {@link CallAbort}. */
  signal: CallSignal;
  /**
   * The controller of `signal`, when the call owns it (the direct path): a held call then uses it
   * for the drain too instead of a second controller and a listener.
   */
  controller?: CallAbort;
};
