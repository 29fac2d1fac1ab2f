import { z } from 'zod';
import type { ErrorCode } from './errors.js';
import { FormQuestionsSchema, OptionsSchema } from './form.js';
import {
  ActionSchema,
  AskerSchema,
  ConfidenceSchema,
  ContextSchema,
  DeadlinesSchema,
  EscalationSchema,
  FormatSchema,
  InquiryKindSchema,
  type InquiryStatus,
  type ResolvedBy,
  ResponseSchema,
  VoteSchema,
} from './inquiry.js';
import { LIMITS } from './limits.js';

/** The inquiry as a device sees it (`inquiry:new`, `inquiry:updated`, `inquiry:sync`). */
export const DeviceInquirySchema = z.object({
  inquiryId: z.string(),
  question: z.string(),
  questions: FormQuestionsSchema.optional(),
  format: FormatSchema,
  options: OptionsSchema.optional(),
  context: ContextSchema.optional(),
  kind: InquiryKindSchema,
  action: ActionSchema.optional(),
  critical: z.boolean(),
  /** The asker's confidence (0..1), when it gave one: an approval card shows a low one as its reason. */
  confidence: ConfidenceSchema.optional(),
  defaultAnswer: ResponseSchema.optional(),
  suggestedAnswer: ResponseSchema.optional(),
  /** A quorum approval: approvals it needs, and the votes so far ("1 of 2 approvals"). */
  quorum: z.number().optional(),
  votes: z.array(VoteSchema).optional(),
  /** Who else is asked (a team's members, a list of users), and the team's id. */
  audience: z.array(z.string()).optional(),
  team: z.string().optional(),
  /** Present once the inquiry escalated: who was added, and when. */
  escalation: EscalationSchema.optional(),
  asker: AskerSchema,
  createdAt: z.number(),
  deadlines: DeadlinesSchema,
  /** Server clock when this was sent, so a device can correct its countdown for skew. */
  serverTime: z.number(),
});
export type DeviceInquiry = z.infer<typeof DeviceInquirySchema>;

export interface InquiryResolvedEvent {
  inquiryId: string;
  status: InquiryStatus;
  resolvedBy: ResolvedBy;
}

/**
 * One page of the pending list a (re)connected device gets (`inquiry:sync`), newest first, at most
 * `LIMITS.syncPageBytes` of JSON. The list is complete at the page with `more: false`; the device
 * acks each page, and the next one is sent only after that ack (a device that does not read gets
 * no more than one page).
 */
export interface InquirySyncEvent {
  inquiries: DeviceInquiry[];
  serverTime: number;
  /** More pages follow; absent (older servers) means this page is the whole list. */
  more?: boolean;
}

export const DeviceAnswerSchema = z.object({
  inquiryId: z.string().min(1).max(100),
  response: ResponseSchema,
});
export type DeviceAnswer = z.infer<typeof DeviceAnswerSchema>;

export const DeviceInquiryRefSchema = z.object({ inquiryId: z.string().min(1).max(100) });
export type DeviceInquiryRef = z.infer<typeof DeviceInquiryRefSchema>;

export type DeviceAck =
  /** `pending` with `votes`: a quorum approval counted this vote and waits for more. */
  | { ok: true; status: InquiryStatus; votes?: z.infer<typeof VoteSchema>[] }
  | {
      ok: false;
      error: { code: ErrorCode; message: string };
      status?: InquiryStatus;
      resolvedBy?: ResolvedBy;
    };

export interface ServerToDeviceEvents {
  'inquiry:new': (inquiry: DeviceInquiry) => void;
  'inquiry:updated': (inquiry: DeviceInquiry) => void;
  'inquiry:resolved': (event: InquiryResolvedEvent) => void;
  'inquiry:sync': (event: InquirySyncEvent, ack: () => void) => void;
}

export interface DeviceToServerEvents {
  'inquiry:answer': (answer: DeviceAnswer, ack: (result: DeviceAck) => void) => void;
  'inquiry:refuse': (ref: DeviceInquiryRef, ack: (result: DeviceAck) => void) => void;
  'inquiry:timeout': (ref: DeviceInquiryRef, ack: (result: DeviceAck) => void) => void;
}

/** Handshake `auth` a device sends. */
export const DeviceHandshakeSchema = z.object({
  token: z.string().min(1),
  deviceName: z.string().min(1).max(100).optional(),
  /** A stable id the device keeps across reconnects; the socket id when absent. */
  deviceId: z.string().min(1).max(100).optional(),
});
export type DeviceHandshake = z.infer<typeof DeviceHandshakeSchema>;

export const SOCKET_PATH = '/socket.io';
export const SOCKET_MAX_BUFFER_BYTES = LIMITS.socketBufferBytes;
