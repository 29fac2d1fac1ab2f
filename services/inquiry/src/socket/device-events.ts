import {
  type DeviceAck,
  DeviceAnswerSchema,
  DeviceInquiryRefSchema,
  DeviceRefusalSchema,
  describeZodError,
  HitlError,
  retryAfterSeconds,
} from '@hitl/protocol';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { InquiryService } from '../core/inquiry-service.js';
import type { Ending } from '../core/outcomes.js';
import type { Clock } from '../core/ports.js';
import type { RateLimiter } from '../core/rate-limit.js';
import { isStoreOutage, storeUnavailable } from '../core/store-outage.js';
import type { DeviceSocket } from './device-socket.js';
import type { RelayedInquiries } from './relayed-inquiries.js';

export interface DeviceEventDeps {
  service: InquiryService;
  limiter: RateLimiter;
  logger: Logger;
  clock: Clock;
  /** What this node relayed to its devices: an answer to one of those skips the read before its resolve. */
  relayed?: RelayedInquiries;
}

/** A device's answers, refusals and timer reports, each acked `{ok, status}` or `{ok: false, error}`. */
export function handleDeviceEvents(socket: DeviceSocket, deps: DeviceEventDeps): void {
  socket.on('inquiry:answer', (payload, ack) =>
    handle(deps, socket, ack, DeviceAnswerSchema, payload, ({ inquiryId: _id, ...answer }) => ({
      type: 'answer',
      ...answer,
      device: socket.data.device,
    })),
  );
  socket.on('inquiry:refuse', (payload, ack) =>
    handle(deps, socket, ack, DeviceRefusalSchema, payload, (p) => ({
      type: 'refusal',
      ...(p.reason ? { reason: p.reason } : {}),
      device: socket.data.device,
    })),
  );
  socket.on('inquiry:timeout', (payload, ack) =>
    handle(deps, socket, ack, DeviceInquiryRefSchema, payload, () => ({
      type: 'device-timer',
      device: socket.data.device,
    })),
  );
}

async function handle<S extends z.ZodType>(
  deps: DeviceEventDeps,
  socket: DeviceSocket,
  ack: unknown,
  schema: S,
  payload: unknown,
  toEnding: (parsed: z.infer<S>) => Ending,
): Promise<void> {
  const reply = typeof ack === 'function' ? (ack as (r: DeviceAck) => void) : () => undefined;
  const fail = (code: HitlError['code'], message: string) => reply({ ok: false, error: { code, message } });
  const parsed = schema.safeParse(payload);
  if (!parsed.success) return fail('invalid_input', describeZodError(parsed.error));
  const { inquiryId } = parsed.data as { inquiryId: string };
  const { userId } = socket.data;
  const ending = toEnding(parsed.data);
  // An answer to what this node relayed to its devices needs no read first (the resolve checks).
  const relayed = ending.type === 'answer' ? deps.relayed?.get(inquiryId, deps.clock.now()) : undefined;
  // Else the read the resolve needs goes out with the rate-limit check (one round trip, not two); it
  // changes nothing, so an answer over the limit still has no effect.
  const found = relayed ? undefined : deps.service.find(inquiryId, userId);
  found?.catch(() => undefined);
  const rate = await deps.limiter.consume(socket.data.tokenKey);
  if (!rate.ok)
    return fail('rate_limited', `rate limit reached; retry in ${retryAfterSeconds(rate.retryAfterMs)} s`);
  try {
    const result =
      relayed && ending.type === 'answer'
        ? await deps.service.answerRelayed(inquiryId, userId, ending, relayed)
        : await deps.service.settle(inquiryId, userId, ending, found);
    if (result.kind === 'won') return reply({ ok: true, status: result.inquiry.status });
    if (result.kind === 'not_found') return fail('not_found', `no inquiry ${inquiryId}`);
    if (result.kind === 'counted') {
      return reply({ ok: true, status: 'pending', votes: result.inquiry.votes ?? [] });
    }
    if (result.kind === 'already_voted') {
      return reply({
        ok: false,
        error: { code: 'already_voted', message: 'you have voted on this approval already' },
        status: result.inquiry.status,
      });
    }
    const { status, resolvedBy } = result.inquiry;
    return reply({
      ok: false,
      error: { code: 'already_resolved', message: `this inquiry is already ${status}` },
      status,
      ...(resolvedBy ? { resolvedBy } : {}),
    });
  } catch (error) {
    if (error instanceof HitlError) return fail(error.code, error.message);
    if (isStoreOutage(error)) return fail('unavailable', storeUnavailable().message);
    deps.logger.error({ err: error, inquiryId }, 'device event failed');
    return fail('internal', 'internal error');
  }
}
