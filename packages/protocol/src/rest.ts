import { z } from 'zod';
import { answerExtrasShape, ReasonSchema } from './approval-shape.js';
import { ResponseSchema } from './inquiry.js';
import { LIMITS } from './limits.js';
import { UserIdSchema } from './tokens.js';

export const AnswerBodySchema = z.object({ response: ResponseSchema, ...answerExtrasShape });
export type AnswerBody = z.infer<typeof AnswerBodySchema>;

/** `POST /api/inquiries/:id/refuse`: no body, or the person's reason. */
export const RefuseBodySchema = z.object({ reason: ReasonSchema.optional() });
export type RefuseBody = z.infer<typeof RefuseBodySchema>;

const LimitSchema = z.coerce.number().int().min(1).max(LIMITS.pageSize).default(50);

export const ListInquiriesQuerySchema = z.object({
  status: z.enum(['pending', 'all']).default('pending'),
  user: UserIdSchema.optional(),
  limit: LimitSchema,
  cursor: z.string().max(200).optional(),
});
export type ListInquiriesQuery = z.infer<typeof ListInquiriesQuerySchema>;

/** Every list answers `{items, nextCursor}`; `nextCursor` is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}
