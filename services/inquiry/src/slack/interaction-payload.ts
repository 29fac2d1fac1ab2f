import { fieldProblem, type Inquiry, type InquiryResponse } from '@hitl/protocol';
import { z } from 'zod';
import type { ModalMeta } from './modal-views.js';
import { REASON_CHARS } from './modal-views.js';
import { fieldBlock, INPUTS, MODALS, type ModalKind } from './slack-actions.js';

/*
 * What Slack sends to `POST /slack/interactions` (the form field `payload`, JSON), as far as we read
 * it, and how a modal's submitted state becomes an answer. Pure. Slack sends many more fields; only
 * these are read, each bounded.
 */

const MemberIdSchema = z.string().regex(/^[UW][A-Z0-9]{2,20}$/, 'expected a Slack member id');
const ChannelIdSchema = z.string().regex(/^[CDG][A-Z0-9]{2,20}$/, 'expected a Slack channel id');

const StateValueSchema = z.object({
  type: z.string().max(100),
  value: z.string().max(20_000).nullable().optional(),
  selected_option: z
    .object({ value: z.string().max(150) })
    .nullable()
    .optional(),
  selected_options: z
    .array(z.object({ value: z.string().max(150) }))
    .max(100)
    .optional(),
});
type StateValue = z.infer<typeof StateValueSchema>;

/** `view.state.values`: block id → action id → the input's value. */
const StateValuesSchema = z.record(z.string().max(255), z.record(z.string().max(255), StateValueSchema));
export type StateValues = z.infer<typeof StateValuesSchema>;

export const BlockActionsSchema = z.object({
  type: z.literal('block_actions'),
  user: z.object({ id: MemberIdSchema }),
  trigger_id: z.string().min(1).max(255).optional(),
  container: z
    .object({ channel_id: ChannelIdSchema.optional(), message_ts: z.string().max(40).optional() })
    .optional(),
  channel: z.object({ id: ChannelIdSchema }).optional(),
  actions: z
    .array(
      z.object({
        action_id: z.string().min(1).max(255),
        value: z.string().max(2000).optional(),
        selected_option: z
          .object({ value: z.string().max(150) })
          .nullable()
          .optional(),
      }),
    )
    .min(1)
    .max(1),
});
export type BlockActions = z.infer<typeof BlockActionsSchema>;

export const ViewSubmissionSchema = z.object({
  type: z.literal('view_submission'),
  user: z.object({ id: MemberIdSchema }),
  view: z.object({
    callback_id: z.string().max(255),
    private_metadata: z.string().max(3000),
    state: z.object({ values: StateValuesSchema }),
  }),
});
export type ViewSubmission = z.infer<typeof ViewSubmissionSchema>;

export const InteractionSchema = z.discriminatedUnion('type', [BlockActionsSchema, ViewSubmissionSchema], {
  error: 'type: expected block_actions or view_submission',
});
export type Interaction = z.infer<typeof InteractionSchema>;

const MetaSchema = z.object({ i: z.string().regex(/^[0-9A-Za-z]{10,40}$/), c: ChannelIdSchema.optional() });

/** Which of our modals a submission comes from, and the inquiry it names; undefined when not ours. */
export function readModal(view: ViewSubmission['view']): { kind: ModalKind; meta: ModalMeta } | undefined {
  const kind = (Object.keys(MODALS) as ModalKind[]).find((k) => MODALS[k] === view.callback_id);
  if (!kind) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(view.private_metadata);
  } catch {
    return undefined;
  }
  const parsed = MetaSchema.safeParse(raw);
  if (!parsed.success) return undefined;
  return { kind, meta: { inquiryId: parsed.data.i, ...(parsed.data.c ? { channel: parsed.data.c } : {}) } };
}

/** Per input block, what is wrong with it (Slack shows each under its input). */
export type InputErrors = Record<string, string>;

const only = (values: StateValues, block: string): StateValue | undefined => {
  const actions = values[block];
  return actions ? Object.values(actions)[0] : undefined;
};

/** The reason typed into a reject or decline modal (empty: none). */
export function readReason(values: StateValues): { reason?: string } | { errors: InputErrors } {
  const reason = only(values, INPUTS.reason)?.value?.trim();
  if (!reason) return {};
  if (reason.length > REASON_CHARS) {
    return { errors: { [INPUTS.reason]: `at most ${REASON_CHARS} characters` } };
  }
  return { reason };
}

/** The answer a free-text or form modal holds, each field read by its kind and checked. */
export function readAnswer(
  inquiry: Inquiry,
  values: StateValues,
): { response: InquiryResponse } | { errors: InputErrors } {
  if (!inquiry.questions) {
    const text = only(values, INPUTS.answer)?.value?.trim();
    return text ? { response: text } : { errors: { [INPUTS.answer]: 'write an answer' } };
  }
  const response: Record<string, string | number | boolean | string[]> = {};
  const errors: InputErrors = {};
  inquiry.questions.forEach((q, i) => {
    const block = fieldBlock(i);
    const value = fieldValue(q.kind, q.options, only(values, block));
    if (value === undefined) {
      if (q.required) errors[block] = 'required';
      return;
    }
    const problem = fieldProblem(q, value);
    if (problem) errors[block] = problem;
    else response[q.id] = value;
  });
  return Object.keys(errors).length ? { errors } : { response };
}

/** One input's value as the field's kind holds it; undefined when left empty. */
function fieldValue(
  kind: string,
  options: readonly string[] | undefined,
  input: StateValue | undefined,
): string | number | boolean | string[] | undefined {
  if (!input) return undefined;
  const option = (value: string | undefined) => (value === undefined ? undefined : options?.[Number(value)]);
  switch (kind) {
    case 'number': {
      const text = input.value?.trim();
      return text ? Number(text) : undefined;
    }
    case 'boolean': {
      const chosen = input.selected_option?.value;
      return chosen === undefined ? undefined : chosen === 'true';
    }
    case 'choice':
      return option(input.selected_option?.value ?? undefined) ?? (input.selected_option ? '' : undefined);
    case 'multi': {
      const chosen = (input.selected_options ?? []).map((o) => option(o.value) ?? '');
      return chosen.length ? chosen : undefined;
    }
    default:
      return input.value?.trim() || undefined;
  }
}
