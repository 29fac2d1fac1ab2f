import type { TokenService } from '@hitl/auth';
import { MAX_BUCKETS, summarize } from '@hitl/decisions';
import { type AuthVariables, errorResponse, requireRole } from '@hitl/mcp-http';
import { describeZodError, ListDecisionsQuerySchema } from '@hitl/protocol';
import type { DecisionLog, InquiryStore } from '@hitl/store';
import { RECORD_ID } from '@hitl/store';
import { Hono } from 'hono';
import { z } from 'zod';
import type { Clock } from '../core/ports.js';

export interface DecisionRouteDeps {
  decisionLog: DecisionLog;
  store: InquiryStore;
  tokens: TokenService;
  clock: Clock;
}

type Env = { Variables: AuthVariables };

const HOUR_MS = 3_600_000;
/** Most records one summary reads. */
const SUMMARY_MAX_RECORDS = 100_000;

const SinceSchema = z.union([
  z.coerce.number().int().min(0),
  z.iso.datetime().transform((d) => Date.parse(d)),
]);
const SummaryQuerySchema = z.object({
  since: SinceSchema.optional(),
  bucketMs: z.coerce
    .number()
    .int()
    .min(1000)
    .max(30 * 24 * HOUR_MS)
    .default(HOUR_MS),
});

/**
 * The decision audit log for ops (every other role gets 403): `GET /decisions` (filtered, paged),
 * `GET /decisions/summary` (for the console's charts) and `GET /decisions/:id` (with its inquiry).
 */
export function decisionRoutes(deps: DecisionRouteDeps): Hono<Env> {
  const app = new Hono<Env>();
  const ops = requireRole(deps.tokens, ['ops']);

  app.get('/decisions/summary', ops, async (c) => {
    const parsed = SummaryQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    const now = deps.clock.now();
    const { bucketMs } = parsed.data;
    const since = parsed.data.since ?? now - 24 * HOUR_MS;
    if (since >= now) return errorResponse(c, 'invalid_input', 'since: must be in the past');
    if ((now - since) / bucketMs > MAX_BUCKETS) {
      return errorResponse(
        c,
        'invalid_input',
        `bucketMs: more than ${MAX_BUCKETS} buckets since ${since}; use larger buckets`,
      );
    }
    const records = await deps.decisionLog.since(since, SUMMARY_MAX_RECORDS);
    return c.json(summarize(records, since, bucketMs, now));
  });

  app.get('/decisions', ops, async (c) => {
    const parsed = ListDecisionsQuerySchema.safeParse(c.req.query());
    if (!parsed.success) return errorResponse(c, 'invalid_input', describeZodError(parsed.error));
    if (parsed.data.cursor !== undefined && !RECORD_ID.test(parsed.data.cursor)) {
      return errorResponse(c, 'invalid_input', 'cursor: not a cursor this list gave out');
    }
    return c.json(await deps.decisionLog.list(parsed.data));
  });

  app.get('/decisions/:id', ops, async (c) => {
    const id = c.req.param('id');
    const record = await deps.decisionLog.get(id);
    if (!record) return errorResponse(c, 'not_found', `no decision ${id}`);
    // The inquiry may be gone once its retention ends; the record stays.
    return c.json({ ...record, inquiry: await deps.store.get(record.inquiryId) });
  });

  return app;
}
