import { describe, expect, it } from 'vitest';
import { ackOf, viewOf } from '../../src/card/card-result';
import { inquiryFromPath } from '../../src/terminal/inquiry-page';

const now = 1_000_000;
const inquiry = {
  inquiryId: 'inq-1',
  asker: { tokenSubject: 'alice', name: 'bot' },
  question: 'Which size?',
  format: 'text',
  kind: 'question',
  critical: false,
  options: ['S', 'M'],
  createdAt: now,
  deadlines: { deviceAt: now + 30_000, serviceAt: now + 50_000, clientAt: now + 90_000 },
  status: 'pending',
  serverTime: now + 200,
};
const pending = {
  structuredContent: { inquiryId: 'inq-1', status: 'pending', elapsedMs: 5 },
  _meta: {
    'hitl/cardToken': 'hitl-c1.x.y',
    'hitl/inquiry': inquiry,
    'hitl/page': 'https://hitl.example/i/inq-1',
  },
};

describe('what the inquiry card reads from a result', () => {
  it('a pending result with its card _meta can be answered, skew-corrected to this clock', () => {
    const view = viewOf(pending, now);
    expect(view.result?.status).toBe('pending');
    expect(view.pending).toMatchObject({ cardToken: 'hitl-c1.x.y', page: 'https://hitl.example/i/inq-1' });
    expect(view.pending?.inquiry).toMatchObject({
      inquiryId: 'inq-1',
      skewMs: 200,
      localDeviceAt: now + 30_000 - 200,
    });
  });

  it('without a token, with a page that is not http(s), or with no inquiry, the card cannot answer', () => {
    const meta = pending._meta;
    for (const broken of [
      { ...meta, 'hitl/cardToken': undefined },
      { ...meta, 'hitl/page': 'javascript:alert(1)' },
      { ...meta, 'hitl/inquiry': { question: 'half' } },
    ]) {
      expect(viewOf({ ...pending, _meta: broken }, now).pending).toBeUndefined();
    }
  });

  it("answer_inquiry's result as an ack", () => {
    expect(ackOf({ structuredContent: { inquiryId: 'inq-1', status: 'answered', elapsedMs: 9 } })).toEqual({
      ok: true,
      status: 'answered',
    });
    expect(
      ackOf({
        isError: true,
        content: [{ type: 'text', text: 'Not sent: the question has already ended (answered).' }],
      }),
    ).toMatchObject({
      ok: false,
      error: { message: 'the question has already ended (answered).' },
    });
  });

  it('the page of one inquiry is /i/<id>', () => {
    expect(inquiryFromPath('/i/01ABC')).toBe('01ABC');
    expect(inquiryFromPath('/i/a%2Fb/')).toBe('a/b');
    expect(inquiryFromPath('/')).toBeNull();
    expect(inquiryFromPath('/i/')).toBeNull();
    expect(inquiryFromPath('/i/%E0')).toBeNull();
  });
});
