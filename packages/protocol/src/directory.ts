import { z } from 'zod';

/*
 * The directory: who the people are, how each wants to be reached when no page is
 * open, the teams an agent may ask, and the webhooks that hear about inquiries. One file
 * (`HITL_DIRECTORY_FILE`, YAML or JSON), checked at start and on every reload.
 */

const UserIdSchema = z.string().min(1).max(200);

/** How a person is reached beyond an open page. */
export const NotifyChannelSchema = z.enum(['push', 'email', 'webhook', 'slack']);
export type NotifyChannel = z.infer<typeof NotifyChannelSchema>;

export const DirectoryUserSchema = z.strictObject({
  name: z.string().min(1).max(200).optional(),
  email: z.email().max(320).optional(),
  notify: z.array(NotifyChannelSchema).optional(),
  /** Mail only once the question has waited this long unanswered; absent: at once. */
  emailAfterMs: z.number().int().min(0).optional(),
  /** The person's Slack member id (`U…` or `W…`): their clicks in Slack answer as this user. */
  slack: z
    .string()
    .regex(/^[UW][A-Z0-9]{2,20}$/, 'expected a Slack member id such as U0123ABCD')
    .optional(),
});
export type DirectoryUser = z.infer<typeof DirectoryUserSchema>;

/** Whom an escalation adds: a team or one user. */
export const AudienceRefSchema = z.union([
  z.strictObject({ team: UserIdSchema }),
  z.strictObject({ user: UserIdSchema }),
]);
export type AudienceRef = z.infer<typeof AudienceRefSchema>;

export const TeamSchema = z.strictObject({
  members: z.array(UserIdSchema).min(1).max(1000),
  /** Users whose agents may address the team; absent: its members. */
  askers: z.array(UserIdSchema).max(1000).optional(),
  escalateTo: AudienceRefSchema.optional(),
  escalateAfterMs: z.number().int().min(1000).optional(),
  /** A Slack channel id (`C…` or `G…`): the team's questions are posted there instead of each member's DM. */
  slackChannel: z
    .string()
    .regex(/^[CG][A-Z0-9]{2,20}$/, 'expected a Slack channel id such as C0123ABCD')
    .optional(),
});
export type Team = z.infer<typeof TeamSchema>;

export const WebhookEventSchema = z.enum(['inquiry.created', 'inquiry.resolved']);
export type WebhookEvent = z.infer<typeof WebhookEventSchema>;

export const WebhookSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  /** The Standard Webhooks signing secret: `whsec_` and base64 of at least 24 random bytes. */
  secret: z
    .string()
    .regex(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/, 'expected whsec_ and base64 of 24 to 64 bytes'),
  events: z.array(WebhookEventSchema).min(1),
  /** Only inquiries of these users; absent: every user's. */
  users: z.array(UserIdSchema).optional(),
});
export type Webhook = z.infer<typeof WebhookSchema>;

export const DirectorySchema = z
  .strictObject({
    users: z.record(UserIdSchema, DirectoryUserSchema).default({}),
    teams: z.record(UserIdSchema, TeamSchema).default({}),
    webhooks: z.array(WebhookSchema).max(100).default([]),
  })
  .superRefine((directory, ctx) => {
    for (const [id, team] of Object.entries(directory.teams)) {
      const path = ['teams', id];
      const target = team.escalateTo;
      if (target && 'team' in target && !directory.teams[target.team]) {
        ctx.addIssue({ code: 'custom', path: [...path, 'escalateTo'], message: `no team "${target.team}"` });
      }
      if (team.escalateAfterMs !== undefined && !target) {
        ctx.addIssue({ code: 'custom', path: [...path, 'escalateAfterMs'], message: 'needs escalateTo' });
      }
      if (target && team.escalateAfterMs === undefined) {
        ctx.addIssue({ code: 'custom', path: [...path, 'escalateTo'], message: 'needs escalateAfterMs' });
      }
    }
    const members = new Map<string, string>();
    for (const [id, user] of Object.entries(directory.users)) {
      const other = user.slack === undefined ? undefined : members.get(user.slack);
      if (user.slack !== undefined && other !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['users', id, 'slack'],
          message: `Slack member ${user.slack} is already user "${other}"`,
        });
      } else if (user.slack !== undefined) members.set(user.slack, id);
      if (user.notify?.includes('email') && !user.email) {
        ctx.addIssue({
          code: 'custom',
          path: ['users', id, 'email'],
          message: 'notify names email: give an address',
        });
      }
      if (user.notify?.includes('slack') && !user.slack) {
        ctx.addIssue({
          code: 'custom',
          path: ['users', id, 'slack'],
          message: 'notify names slack: give the Slack member id',
        });
      }
    }
  });
export type Directory = z.infer<typeof DirectorySchema>;

export const EMPTY_DIRECTORY: Directory = { users: {}, teams: {}, webhooks: [] };
