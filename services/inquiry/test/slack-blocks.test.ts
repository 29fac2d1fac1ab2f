import type { Inquiry } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { readAnswer, readReason } from '../src/slack/interaction-payload.js';
import { inquiryMessage } from '../src/slack/message-blocks.js';
import { answerModal, reasonModal } from '../src/slack/modal-views.js';
import { parseAction } from '../src/slack/slack-actions.js';
import { escapeSlack, slackChunks, slackDate, slackSafe } from '../src/slack/slack-text.js';

/** What people see in Slack, built without any I/O: the message and modal Block Kit, and what a submission reads as. */

const ID = '01JABCDEFGHJKMNPQRSTVWXYZ0';
const ctx = { nameOf: (userId: string) => ({ ann: 'Ann' })[userId] ?? userId };

function inquiry(overrides: Partial<Inquiry> = {}): Inquiry {
  return {
    inquiryId: ID,
    userId: 'robot',
    question: 'Which size?',
    format: 'text',
    kind: 'question',
    critical: false,
    asker: { tokenSubject: 'robot', name: 'Shop bot' },
    createdAt: 1_700_000_000_000,
    deadlines: { deviceAt: 1_700_000_030_000, serviceAt: 1_700_000_050_000, clientAt: 1_700_000_090_000 },
    status: 'pending',
    ...overrides,
  };
}

const json = (value: unknown) => JSON.stringify(value);
const elementsOf = (blocks: { type: string; elements?: unknown[] }[]) =>
  blocks
    .filter((b) => b.type === 'actions')
    .flatMap((b) => (b.elements ?? []) as { type: string; action_id: string; value?: string }[]);

describe('Slack text', () => {
  it('escapes Slack’s control characters and shows invisible ones', () => {
    expect(escapeSlack('a & <b> <!channel>')).toBe('a &amp; &lt;b&gt; &lt;!channel&gt;');
    expect(slackSafe('invoice\u202Efdp.exe <@U1>')).toBe('invoice\\u202efdp.exe &lt;@U1&gt;');
  });

  it('cuts long text into pieces of at most 3000 characters, never inside an entity, marking the cut', () => {
    const chunks = slackChunks('&'.repeat(4000), 3000, 1);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]?.length).toBeLessThanOrEqual(3000);
    expect(chunks[0]).toMatch(/^(&amp;)+…$/);
    const all = slackChunks('x'.repeat(8000));
    expect(all.map((c) => c.length)).toEqual([3000, 3000, 2000]);
  });

  it('writes the deadline in Slack’s own date formatting, with a UTC fallback', () => {
    expect(slackDate(1_700_000_050_000)).toBe(
      '<!date^1700000050^{date_short_pretty} at {time}|2023-11-14 22:14 UTC>',
    );
  });
});

describe('the message of a pending inquiry', () => {
  it('shows the question escaped, who asks and why, the deadline and the option buttons', () => {
    const message = inquiryMessage(
      inquiry({
        question: 'Ship <v2> & \u202Etag?',
        options: ['S', 'M'],
        critical: true,
        confidence: 0.25,
        context: { why: 'policy <gate>' },
      }),
      ctx,
    );
    const text = json(message.blocks);
    expect(text).toContain('Ship &lt;v2&gt; &amp; \\\\u202etag?');
    expect(text).toContain('*Question* from *Shop bot*');
    expect(text).toContain('*Why:* policy &lt;gate&gt;');
    expect(text).toContain('*Critical*');
    expect(text).toContain('25 %');
    expect(text).toContain('<!date^1700000050^');
    expect(message.text).toBe('Question from Shop bot: Ship &lt;v2&gt; &amp; \\u202etag?');
    expect(elementsOf(message.blocks).map((e) => [e.action_id, e.value])).toEqual([
      ['hitl.option.0', `${ID}:0`],
      ['hitl.option.1', `${ID}:1`],
      ['hitl.decline', ID],
    ]);
  });

  it('turns more than five options into a select menu', () => {
    const options = ['a', 'b', 'c', 'd', 'e', 'f'];
    const [menu] = elementsOf(inquiryMessage(inquiry({ options }), ctx).blocks) as unknown as {
      type: string;
      options: { value: string }[];
    }[];
    expect(menu?.type).toBe('static_select');
    expect(menu?.options.map((o) => o.value)).toEqual(options.map((_, i) => `${ID}:${i}`));
    expect(elementsOf(inquiryMessage(inquiry({ options: options.slice(0, 5) }), ctx).blocks)).toHaveLength(6);
  });

  it('shows an approval’s action and arguments and offers approve / reject', () => {
    const message = inquiryMessage(
      inquiry({
        kind: 'approval',
        question: 'Drop it?',
        action: { server: 'db', tool: 'drop_table', arguments: { table: '<orders>', note: 'a ```fence```' } },
      }),
      ctx,
    );
    const text = json(message.blocks);
    expect(text).toContain('*Action:* `drop_table` on `db`');
    expect(text).toContain('&lt;orders&gt;');
    expect(text).not.toMatch(/```fence/);
    expect(elementsOf(message.blocks).map((e) => e.action_id)).toEqual(['hitl.approve', 'hitl.reject']);
  });

  it('a passkey approval’s approve is a link to its page, where the passkey is asked', () => {
    const message = inquiryMessage(inquiry({ kind: 'approval', question: 'Pay?', requirePasskey: true }), {
      ...ctx,
      pageUrl: `https://hitl.example/i/${ID}`,
    });
    const [approve, reject] = elementsOf(message.blocks) as { action_id: string; url?: string }[];
    expect(approve).toMatchObject({ action_id: 'hitl.open', url: `https://hitl.example/i/${ID}` });
    expect(reject?.action_id).toBe('hitl.reject');
    expect(parseAction('hitl.open', ID)).toEqual({ kind: 'openPage', inquiryId: ID });
  });

  it('a free-text or form question opens the modal; a DM carries its answer link', () => {
    const message = inquiryMessage(inquiry(), { ...ctx, answerUrl: 'https://hitl.example/a/abc' });
    expect(elementsOf(message.blocks).map((e) => e.action_id)).toEqual(['hitl.answer', 'hitl.decline']);
    expect(json(message.blocks)).toContain('<https://hitl.example/a/abc|open the answer page>');
  });
});

describe('the message of an ended inquiry', () => {
  it('says who decided, on which device, with the controls gone', () => {
    const ended = inquiryMessage(
      inquiry({
        kind: 'approval',
        status: 'answered',
        answer: 'approve',
        resolvedAt: 1_700_000_010_000,
        resolvedBy: { kind: 'human', userId: 'ann', deviceName: 'Phone' },
      }),
      ctx,
    );
    expect(elementsOf(ended.blocks)).toEqual([]);
    expect(json(ended.blocks)).toContain(':white_check_mark: *Approved* by *Ann* on Phone');
    const timedOut = inquiryMessage(
      inquiry({ status: 'timed_out', resolvedBy: { kind: 'service-timer' } }),
      ctx,
    );
    expect(json(timedOut.blocks)).toContain('*Timed out*: nobody answered in time');
  });
});

describe('modals and what their submissions read as', () => {
  const form = inquiry({
    format: 'form',
    questions: [
      { id: 'size', prompt: 'Size?', kind: 'choice', options: ['S', 'M'], required: true },
      { id: 'qty', prompt: 'How many?', kind: 'number', default: 2 },
      { id: 'gift', prompt: 'Gift?', kind: 'boolean', default: false },
    ],
  });

  it('a form has one input per field, defaults filled in', () => {
    const view = answerModal(form, { inquiryId: ID, channel: 'D0ANN' });
    const inputs = view.blocks.filter((b) => b.type === 'input') as unknown as {
      block_id: string;
      optional: boolean;
      element: Record<string, unknown>;
    }[];
    expect(inputs.map((i) => [i.block_id, i.element.type, i.optional])).toEqual([
      ['f.0', 'static_select', false],
      ['f.1', 'number_input', true],
      ['f.2', 'radio_buttons', true],
    ]);
    expect(inputs[1]?.element.initial_value).toBe('2');
    expect(inputs[2]?.element.initial_option).toMatchObject({ value: 'false' });
    expect(JSON.parse(view.private_metadata ?? '')).toEqual({ i: ID, c: 'D0ANN' });
  });

  it('reads each field by its kind and names what does not fit', () => {
    expect(
      readAnswer(form, {
        'f.0': { v: { type: 'static_select', selected_option: { value: '1' } } },
        'f.1': { v: { type: 'number_input', value: '4.5' } },
        'f.2': { v: { type: 'radio_buttons', selected_option: { value: 'true' } } },
      }),
    ).toEqual({ response: { size: 'M', qty: 4.5, gift: true } });
    expect(
      readAnswer(form, { 'f.0': { v: { type: 'static_select', selected_option: { value: '7' } } } }),
    ).toEqual({
      errors: { 'f.0': '"" is not one of the options' },
    });
    expect(
      readAnswer(inquiry(), { 'hitl.answer': { 'hitl.answer': { type: 'plain_text_input', value: '  ' } } }),
    ).toEqual({
      errors: { 'hitl.answer': 'write an answer' },
    });
  });

  it('a reason is optional and at most 1000 characters', () => {
    const view = reasonModal('reject', inquiry({ kind: 'approval' }), { inquiryId: ID });
    expect(json(view)).toContain('"max_length":1000');
    const reason = (value: string | null) => ({
      'hitl.reason': { 'hitl.reason': { type: 'plain_text_input', value } },
    });
    expect(readReason(reason(null))).toEqual({});
    expect(readReason(reason(' too risky '))).toEqual({ reason: 'too risky' });
    expect(readReason(reason('x'.repeat(1001)))).toEqual({
      errors: { 'hitl.reason': 'at most 1000 characters' },
    });
  });
});

describe('action ids', () => {
  it('reads our controls and nothing else', () => {
    expect(parseAction('hitl.approve', ID)).toEqual({ kind: 'approve', inquiryId: ID });
    expect(parseAction('hitl.option.3', `${ID}:3`)).toEqual({ kind: 'option', inquiryId: ID, index: 3 });
    expect(parseAction('hitl.select', `${ID}:7`)).toEqual({ kind: 'option', inquiryId: ID, index: 7 });
    expect(parseAction('hitl.option.3', `${ID}:2`)).toBeUndefined();
    expect(parseAction('hitl.select', ID)).toBeUndefined();
    expect(parseAction('hitl.approve', 'not an id!')).toBeUndefined();
    expect(parseAction('other.app', ID)).toBeUndefined();
    expect(parseAction('hitl.approve', undefined)).toBeUndefined();
  });
});
