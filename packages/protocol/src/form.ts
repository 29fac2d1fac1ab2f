import { z } from 'zod';
import { LIMITS } from './limits.js';

export const QuestionKindSchema = z.enum(['text', 'choice', 'multi', 'number', 'boolean']);
export type QuestionKind = z.infer<typeof QuestionKindSchema>;

export const OptionsSchema = z
  .array(z.string().min(1).max(LIMITS.optionChars))
  .min(1)
  .max(LIMITS.options)
  .refine((opts) => new Set(opts).size === opts.length, 'options must be unique');

/** The value a form field holds, by kind. */
export const FieldValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);
export type FieldValue = z.infer<typeof FieldValueSchema>;

/** One question of a structured multi-question form. */
export const FormQuestionSchema = z
  .object({
    id: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[A-Za-z0-9_.-]+$/, 'id may hold only letters, digits and _ . -'),
    prompt: z.string().min(1).max(LIMITS.promptChars),
    kind: QuestionKindSchema,
    options: OptionsSchema.optional(),
    default: FieldValueSchema.optional(),
    required: z.boolean().optional(),
  })
  .superRefine((q, ctx) => {
    const needsOptions = q.kind === 'choice' || q.kind === 'multi';
    if (needsOptions && !q.options) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: `a ${q.kind} question needs options` });
    }
    if (!needsOptions && q.options) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: `a ${q.kind} question takes no options` });
    }
    if (q.default !== undefined) {
      const problem = fieldProblem(q, q.default);
      if (problem) ctx.addIssue({ code: 'custom', path: ['default'], message: problem });
    }
  });
export type FormQuestion = z.infer<typeof FormQuestionSchema>;

export const FormQuestionsSchema = z
  .array(FormQuestionSchema)
  .min(1)
  .max(LIMITS.questions)
  .superRefine((questions, ctx) => {
    const seen = new Set<string>();
    questions.forEach((q, index) => {
      if (seen.has(q.id)) {
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate question id "${q.id}"` });
      }
      seen.add(q.id);
    });
  });

/** Why `value` does not fit question `q`, or `null` when it does. */
export function fieldProblem(q: Pick<FormQuestion, 'kind' | 'options'>, value: unknown): string | null {
  switch (q.kind) {
    case 'text':
      if (typeof value !== 'string') return 'expected text';
      return value.length > LIMITS.answerChars ? `text over ${LIMITS.answerChars} characters` : null;
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'expected a finite number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'expected true or false';
    case 'choice':
      if (typeof value !== 'string') return 'expected one of the options';
      return q.options?.includes(value) ? null : `"${value}" is not one of the options`;
    case 'multi': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
        return 'expected a list of options';
      }
      const bad = value.find((v) => !q.options?.includes(v));
      if (bad !== undefined) return `"${bad}" is not one of the options`;
      return new Set(value).size === value.length ? null : 'options chosen twice';
    }
  }
}
