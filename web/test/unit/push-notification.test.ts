import { describe, expect, it } from 'vitest';
import {
  answerFor,
  failureNotification,
  inquiryNotification,
  STICKY_WITHIN_MS,
} from '../../src/sw/push-notification';
import { type InquiryPush, readPushPayload } from '../../src/sw/push-payload';

const NOW = Date.UTC(2026, 11, 3, 12, 0); // a Thursday
const push = (over: Partial<InquiryPush> = {}): InquiryPush => ({
  type: 'inquiry',
  inquiryId: 'inq-1',
  question: 'Deploy to **prod**?',
  kind: 'question',
  answerBy: NOW + 5 * 60_000,
  ...over,
});

describe('inquiryNotification', () => {
  it('tags with the inquiry id, shows plain text and the deadline, stays on screen for a short wait', () => {
    const { title, options } = inquiryNotification(push(), NOW);
    expect(title).toBe('Question for you');
    expect(options.tag).toBe('inq-1');
    expect(options.body).toMatch(/^Deploy to prod\? \(answer by \S+ \d{1,2}:\d{2}/);
    expect(options.requireInteraction).toBe(true);
    expect(options.actions).toEqual([]);
    expect(options.data).toEqual({ inquiryId: 'inq-1', answers: {}, url: '/#inquiry=inq-1' });
  });

  it('a question that may wait days goes to the list instead of staying on screen', () => {
    const later = inquiryNotification(push({ answerBy: NOW + 3 * 86_400_000 }), NOW);
    expect(later.options.requireInteraction).toBe(false);
    const edge = inquiryNotification(push({ answerBy: NOW + STICKY_WITHIN_MS }), NOW);
    expect(edge.options.requireInteraction).toBe(true);
  });

  it('one or two options become buttons whose ids map back to the exact option', () => {
    const { options } = inquiryNotification(push({ options: ['Yes, ship it', 'No'] }), NOW);
    expect(options.actions).toEqual([
      { action: 'option-0', title: 'Yes, ship it' },
      { action: 'option-1', title: 'No' },
    ]);
    expect(answerFor(options.data, 'option-1')).toEqual({
      inquiryId: 'inq-1',
      path: '/api/inquiries/inq-1/answer',
      response: 'No',
    });
    const one = inquiryNotification(push({ options: ['Acknowledge'] }), NOW);
    expect(one.options.actions.map((a) => a.title)).toEqual(['Acknowledge']);
  });

  it('three or more options, or none (a form or free text), give no buttons', () => {
    expect(inquiryNotification(push({ options: ['S', 'M', 'L'] }), NOW).options.actions).toEqual([]);
    expect(inquiryNotification(push({ options: [] }), NOW).options.actions).toEqual([]);
    const { options } = inquiryNotification(push({ options: ['S', 'M', 'L'] }), NOW);
    expect(answerFor(options.data, 'option-0')).toBeNull();
  });

  it('an approval gets Approve / Reject, which send "approve" / "reject" like the page', () => {
    const { title, options } = inquiryNotification(push({ kind: 'approval', options: ['x'] }), NOW);
    expect(title).toBe('Approval needed');
    expect(options.actions.map((a) => a.title)).toEqual(['Approve', 'Reject']);
    expect(answerFor(options.data, 'approve')?.response).toBe('approve');
    expect(answerFor(options.data, 'reject')?.response).toBe('reject');
  });

  it('a passkey approval gets no buttons: a tap opens its card, where only the passkey approves', () => {
    const { title, options } = inquiryNotification(push({ kind: 'approval', requirePasskey: true }), NOW);
    expect(title).toBe('Approval needed');
    expect(options.actions).toEqual([]);
    expect(answerFor(options.data, 'approve')).toBeNull();
  });

  it('never shows raw HTML or invisible characters: the showInvisible rule, markdown marks dropped', () => {
    const { options } = inquiryNotification(
      push({
        question: 'Open <b>invoice\u202Efdp.exe</b>\nnow',
        options: ['ok\u200b', '<img src=x onerror=alert(1)>'],
      }),
      NOW,
    );
    expect(options.body).toContain('invoice\\u202efdp.exe');
    expect(options.body).not.toContain('\u202e');
    expect(options.body).not.toContain('\n');
    expect(options.actions[0]?.title).toBe('ok\\u200b');
    expect(options.actions[1]?.title).not.toContain('\u0000');
    // The button still sends the option exactly as the agent wrote it.
    expect(answerFor(options.data, 'option-0')?.response).toBe('ok\u200b');
  });

  it('a long question is cut to fit, with the deadline kept; a past deadline is left out', () => {
    const { options } = inquiryNotification(push({ question: 'word '.repeat(200) }), NOW);
    expect(options.body.length).toBeLessThanOrEqual(140);
    expect(options.body).toMatch(/… \(answer by /);
    const late = inquiryNotification(push({ answerBy: NOW - 1 }), NOW);
    expect(late.options.body).toBe('Deploy to prod?');
  });

  it('an empty question still says what to do', () => {
    expect(inquiryNotification(push({ question: '**' }), NOW + 60 * 60_000).options.body).toBe(
      'Open the app to see the question.',
    );
  });
});

describe('answerFor', () => {
  it('a plain click, an unknown action or foreign data sends nothing', () => {
    const { options } = inquiryNotification(push({ options: ['a', 'b'] }), NOW);
    expect(answerFor(options.data, '')).toBeNull();
    expect(answerFor(options.data, 'option-7')).toBeNull();
    expect(answerFor({ inquiryId: 1 }, 'option-0')).toBeNull();
    expect(answerFor(null, 'approve')).toBeNull();
  });

  it('escapes the inquiry id in the path', () => {
    const { options } = inquiryNotification(push({ inquiryId: 'a/b?c', options: ['x'] }), NOW);
    expect(answerFor(options.data, 'option-0')?.path).toBe('/api/inquiries/a%2Fb%3Fc/answer');
  });
});

describe('failureNotification', () => {
  it('nothing after a 200; who won after a 409; sign-in after 401; retry otherwise; same tag', () => {
    expect(failureNotification('inq-1', { status: 200 }, NOW)).toBeNull();
    const taken = failureNotification(
      'inq-1',
      {
        status: 409,
        body: { status: 'answered', resolvedBy: { kind: 'human', deviceName: 'Laptop\u202e' } },
      },
      NOW,
    );
    expect(taken?.options.body).toBe('Already answered on Laptop\\u202e.');
    expect(taken?.options.tag).toBe('inq-1');
    expect(failureNotification('inq-1', { status: 409 }, NOW)?.options.body).toBe(
      'This question was already answered.',
    );
    expect(failureNotification('inq-1', { status: 401 }, NOW)?.options.body).toMatch(/no longer signed in/);
    expect(failureNotification('inq-1', { status: 0 }, NOW)?.options.body).toMatch(/not sent/);
    expect(failureNotification('inq-1', { status: 503 }, NOW)?.options.actions).toEqual([]);
  });
});

describe('readPushPayload', () => {
  it('reads both kinds and names the bad field of anything else', () => {
    const ok = readPushPayload(JSON.stringify(push({ options: ['a'] })));
    expect(ok.ok && ok.payload.type).toBe('inquiry');
    const resolved = readPushPayload(
      JSON.stringify({ type: 'resolved', inquiryId: 'inq-1', status: 'answered', extra: 1 }),
    );
    expect(resolved.ok && resolved.payload.type).toBe('resolved');
    expect(readPushPayload(null)).toEqual({ ok: false, problem: 'the push carried no data' });
    expect(readPushPayload('<html>')).toEqual({ ok: false, problem: 'the push data is not JSON' });
    const bad = readPushPayload(JSON.stringify({ ...push(), answerBy: 'soon' }));
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.problem).toMatch(/^answerBy: /);
    const kind = readPushPayload(JSON.stringify({ ...push(), kind: 'form' }));
    expect(!kind.ok && kind.problem).toMatch(/^kind: /);
    expect(readPushPayload(JSON.stringify({ type: 'other' })).ok).toBe(false);
  });
});
