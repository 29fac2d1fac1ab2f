import { formatAnswerBy, type PendingInquiry, received } from '@hitl/client';
import type { DeviceInquiry } from '@hitl/protocol';
import { describe, expect, it } from 'vitest';
import { isNativeShell, notificationFor, notificationId, shouldReconnect } from '../src/index.js';

const NOW = 1_800_000_000_000;
const inquiry = (overrides: Partial<DeviceInquiry> = {}): PendingInquiry =>
  received(
    {
      inquiryId: '01JZ0000000000000000000000',
      question: 'Which size?',
      format: 'text',
      kind: 'question',
      critical: false,
      asker: { name: 'shop assistant', tokenSubject: 'alice' },
      createdAt: NOW,
      deadlines: { deviceAt: NOW + 30_000, serviceAt: NOW + 50_000, clientAt: NOW + 90_000 },
      serverTime: NOW,
      ...overrides,
    },
    NOW,
  );

describe('what a notification says', () => {
  it('who asks and the question as plain words', () => {
    expect(
      notificationFor(
        inquiry({ question: '## Which **shirt**?\n\nPick [one](https://x.example)', format: 'markdown' }),
      ),
    ).toMatchObject({
      title: 'Question from shop assistant',
      body: 'Which shirt? Pick onehttps://x.example',
    });
    expect(
      notificationFor(inquiry({ kind: 'approval', critical: true, asker: { tokenSubject: 'bot-7' } })),
    ).toMatchObject({
      title: 'Approval needed (bot-7) - critical',
    });
  });

  it('a long question is cut to a notification-sized line', () => {
    const body = notificationFor(inquiry({ question: 'word '.repeat(100) })).body;
    expect(body.length).toBe(140);
    expect(body.endsWith('…')).toBe(true);
  });

  it("a question with an answer window says until when, in the phone's time; the body stays 140 long", () => {
    const answerBy = NOW + 3 * 86_400_000;
    const deadlines = { deviceAt: answerBy, serviceAt: answerBy, clientAt: answerBy + 10_000, answerBy };
    const until = ` (answer by ${formatAnswerBy(answerBy, NOW + 1000)})`;
    expect(until).toMatch(/^ \(answer by \S+ .+\)$/);
    expect(notificationFor(inquiry({ question: 'Which week?', deadlines }), NOW + 1000).body).toBe(
      `Which week?${until}`,
    );
    const long = notificationFor(inquiry({ question: 'word '.repeat(100), deadlines }), NOW + 1000).body;
    expect(long.length).toBe(140);
    expect(long.endsWith(`…${until}`)).toBe(true);
    expect(notificationFor(inquiry({ question: 'Which week?' }), NOW + 1000).body).toBe('Which week?');
  });

  it('the id is a positive 32-bit integer, the same for the same inquiry, different for others', () => {
    const ids = Array.from({ length: 2000 }, (_, i) => notificationId(`01JZ${String(i).padStart(22, '0')}`));
    for (const id of ids) expect(id > 0 && id <= 0x7fffffff && Number.isInteger(id)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(notificationId('01JZ0000000000000000000000')).toBe(notificationFor(inquiry()).id);
  });
});

describe('knowing whether the page runs inside the native shell', () => {
  it('only a native Capacitor runtime counts; a browser (or Capacitor on the web) does not', () => {
    expect(isNativeShell({ Capacitor: { isNativePlatform: () => true } })).toBe(true);
    expect(isNativeShell({ Capacitor: { isNativePlatform: () => false } })).toBe(false);
    expect(isNativeShell({})).toBe(false);
    expect(isNativeShell(undefined)).toBe(false);
  });
});

describe('when coming back reconnects', () => {
  it('after a long enough absence, or with the connection down; never with a refused token', () => {
    expect(shouldReconnect(5000, 'connected', 3000)).toBe(true);
    expect(shouldReconnect(1000, 'connected', 3000)).toBe(false);
    expect(shouldReconnect(1000, 'reconnecting', 3000)).toBe(true);
    expect(shouldReconnect(60_000, 'rejected', 3000)).toBe(false);
  });
});

describe('a notification shows hidden characters as escapes', () => {
  it('bidi overrides in the question and the asker name never reach the system notification raw', () => {
    const shown = notificationFor(
      inquiry({
        question: 'Open invoice\u202Efdp.exe?',
        asker: { name: 'bot\u200B', tokenSubject: 'alice' },
      }),
    );
    expect(shown.body).toBe('Open invoice\\u202efdp.exe?');
    expect(shown.title).toBe('Question from bot\\u200b');
  });
});
