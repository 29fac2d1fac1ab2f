import { z } from 'zod';
import { answerExtrasShape, ReasonSchema } from './approval-shape.js';
import type { ErrorCode } from './errors.js';
import {
  InquirySchema,
  type InquiryStatus,
  type ResolvedBy,
  ResponseSchema,
  type VoteSchema,
} from './inquiry.js';
import { LIMITS } from './limits.js';

/**
 * What a device is not shown of an inquiry: the answer and the resolution (a device learns the ending
 * from `inquiry:resolved`), and the caller-only fields (the asker's user, its idempotency key, its
 * fallback). Everything else of {@link InquirySchema} is in the device's view: a field added there
 * reaches devices without an edit here.
 */
export const DEVICE_HIDDEN = {
  userId: true,
  idempotencyKey: true,
  fallback: true,
  status: true,
  answer: true,
  resolvedBy: true,
  resolvedAt: true,
  reason: true,
  arguments: true,
  changed: true,
} as const;

/**
 * The inquiry as a device sees it (`inquiry:new`, `inquiry:updated`, `inquiry:sync`): the stored
 * inquiry less {@link DEVICE_HIDDEN}, `votes` on a quorum approval, `escalation` once it happened, and
 * `serverTime`, the server clock when this was sent, so a device can correct its countdown for skew.
 */
export const DeviceInquirySchema = InquirySchema.omit(DEVICE_HIDDEN).extend({ serverTime: z.number() });
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
  ...answerExtrasShape,
});
export type DeviceAnswer = z.infer<typeof DeviceAnswerSchema>;

export const DeviceInquiryRefSchema = z.object({ inquiryId: z.string().min(1).max(100) });
export type DeviceInquiryRef = z.infer<typeof DeviceInquiryRefSchema>;

/** `inquiry:refuse`: the inquiry, and the person's reason when they gave one. */
export const DeviceRefusalSchema = DeviceInquiryRefSchema.extend({ reason: ReasonSchema.optional() });
export type DeviceRefusal = z.infer<typeof DeviceRefusalSchema>;

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
  'inquiry:refuse': (ref: DeviceRefusal, ack: (result: DeviceAck) => void) => void;
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
