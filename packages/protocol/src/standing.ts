import { z } from 'zod';

/** `POST /api/approvals/standing/use` (agent token): may this exact call run under a standing approval? */
export const StandingUseBodySchema = z
  .object({
    server: z.string().min(1).max(200),
    tool: z.string().min(1).max(200),
    arguments: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();
export type StandingUseBody = z.infer<typeof StandingUseBodySchema>;

/**
 * A standing approval as `GET /api/approvals/standing` lists it: the asker it covers (`userId`), the
 * server and tool, the exact argument values a covered call must have (`match`), when it ends
 * (`until`, epoch ms), who made it, from which approval, and how many calls it covered.
 */
export const StandingApprovalViewSchema = z.object({
  id: z.string(),
  userId: z.string(),
  server: z.string(),
  tool: z.string(),
  match: z.record(z.string(), z.unknown()).optional(),
  until: z.number(),
  createdBy: z.string(),
  createdAt: z.number(),
  inquiryId: z.string(),
  uses: z.number(),
});
export type StandingApprovalView = z.infer<typeof StandingApprovalViewSchema>;

export const StandingListSchema = z.object({ items: z.array(StandingApprovalViewSchema) });
export const StandingEndedSchema = z.object({ ended: StandingApprovalViewSchema });
