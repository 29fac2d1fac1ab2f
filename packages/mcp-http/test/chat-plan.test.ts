import type { Inquiry } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { planElicitation } from '../src/elicitation-plan.js';
import { replyOf } from '../src/elicitation-reply.js';

const now = 1_000_000;
function inquiry(fields: Partial<Inquiry> = {}): Inquiry {
  return {
    inquiryId: 'inq-1',
    userId: 'alice',
    asker: { tokenSubject: 'agent-1', name: 'Shop bot' },
    question: 'Which size?',
    format: 'text',
    kind: 'question',
    critical: false,
    createdAt: now,
    deadlines: { deviceAt: now + 1, serviceAt: now + 2, clientAt: now + 3 },
    status: 'pending',
    ...fields,
  };
}

const FORMS = { protocolVersion: '2025-11-25', form: true, url: false };
const BOTH = { ...FORMS, url: true };
const PAGE = 'https://hitl.example/i/inq-1';

describe('what an inquiry becomes in the chat', () => {
  it('free text is one required string, prefilled with the default answer', () => {
    expect(planElicitation(inquiry({ defaultAnswer: 'M' }), FORMS, PAGE)).toEqual({
      mode: 'form',
      message: 'Shop bot asks:\n\nWhich size?',
      requestedSchema: {
        type: 'object',
        properties: {
          answer: { type: 'string', title: 'Your answer', minLength: 1, maxLength: 8192, default: 'M' },
        },
        required: ['answer'],
      },
    });
  });

  it('shows invisible characters in the question and the asker as escapes', () => {
    const plan = planElicitation(
      inquiry({ question: 'Pay invoice\u202Efdp.exe?', asker: { tokenSubject: 'a\u200Bgent' } }),
      FORMS,
      PAGE,
    );
    expect(plan).toMatchObject({ mode: 'form', message: 'a\\u200bgent asks:\n\nPay invoice\\u202efdp.exe?' });
  });

  it('a multiple choice field needs protocol 2025-11-25: on 2025-06-18 it goes to the page, or nowhere', () => {
    const form = inquiry({
      format: 'form',
      questions: [{ id: 'c', prompt: 'Colours', kind: 'multi', options: ['red', 'blue'] }],
    });
    expect(planElicitation(form, FORMS, PAGE).mode).toBe('form');
    expect(planElicitation(form, { ...BOTH, protocolVersion: '2025-06-18' }, PAGE)).toMatchObject({
      mode: 'url',
      url: PAGE,
    });
    expect(planElicitation(form, { ...FORMS, protocolVersion: '2025-06-18' }, PAGE).mode).toBe('none');
  });

  it('an approval with arguments too long to show goes to the page; a passkey approval never is a form', () => {
    const long = inquiry({
      kind: 'approval',
      action: { server: 's', tool: 't', arguments: { blob: 'x'.repeat(5000) } },
    });
    expect(planElicitation(long, BOTH, PAGE).mode).toBe('url');
    const passkey = { ...inquiry({ kind: 'approval' }), requirePasskey: true } as Inquiry;
    expect(planElicitation(passkey, BOTH, PAGE).mode).toBe('url');
    expect(planElicitation(passkey, FORMS, PAGE).mode).toBe('none');
  });

  it('a client that declared URL mode only gets the page for every question', () => {
    expect(planElicitation(inquiry(), { ...BOTH, form: false }, PAGE)).toMatchObject({
      mode: 'url',
      url: PAGE,
    });
  });
});

describe('what a chat response means', () => {
  const form = inquiry({
    format: 'form',
    questions: [
      { id: 'size', prompt: 'Size', kind: 'choice', options: ['S', 'M'], required: true },
      { id: 'n', prompt: 'How many', kind: 'number' },
    ],
  });

  it('accept with fitting content is the answer; decline a refusal; cancel nothing', () => {
    expect(replyOf(inquiry(), { action: 'accept', content: { answer: 'M' } })).toEqual({
      kind: 'answer',
      response: 'M',
    });
    expect(replyOf(form, { action: 'accept', content: { size: 'S', n: 2 } })).toEqual({
      kind: 'answer',
      response: { size: 'S', n: 2 },
    });
    expect(
      replyOf(inquiry({ kind: 'approval' }), {
        action: 'accept',
        content: { decision: 'approve', reason: 'ok' },
      }),
    ).toEqual({
      kind: 'answer',
      response: 'approve',
      reason: 'ok',
    });
    expect(replyOf(inquiry(), { action: 'decline' })).toEqual({ kind: 'refusal' });
    expect(replyOf(inquiry(), { action: 'cancel' }).kind).toBe('nothing');
  });

  it('names what does not fit', () => {
    const unfit = (i: Inquiry, result: unknown) => {
      const reply = replyOf(i, result);
      return reply.kind === 'unfit' ? reply.problem : reply.kind;
    };
    expect(unfit(form, { action: 'accept', content: { n: 2 } })).toMatch(/size: an answer is required/);
    expect(unfit(form, { action: 'accept', content: { size: 'XL' } })).toMatch(
      /"XL" is not one of the options/,
    );
    expect(unfit(form, { action: 'accept', content: { size: 'S', n: 'two' } })).toMatch(/n/);
    expect(unfit(form, { action: 'accept', content: { size: 'S', other: 1 } })).toMatch(/other/);
    expect(unfit(inquiry(), { action: 'accept', content: { answer: '   ' } })).toMatch(/empty/);
    expect(unfit(inquiry(), { action: 'accept' })).toMatch(/answer/);
    expect(
      unfit(inquiry({ kind: 'approval' }), { action: 'accept', content: { decision: 'maybe' } }),
    ).toMatch(/decision/);
    expect(unfit(inquiry(), { action: 'later' })).toMatch(/action/);
    expect(unfit(inquiry(), 'nonsense')).toMatch(/result/);
  });
});
