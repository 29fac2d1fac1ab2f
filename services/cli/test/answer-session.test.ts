import { type DeviceSnapshot, formatAnswerBy, type PendingInquiry, type ResolvedNotice } from '@hitl/client';
import { describe, expect, it } from 'vitest';
import { onLine } from '../src/answer/input.js';
import { endingText } from '../src/answer/render.js';
import {
  initialSession,
  onAck,
  onResolved,
  onSnapshot,
  promptText,
  type SessionState,
  type Update,
} from '../src/answer/session.js';
import { plain } from '../src/answer/text.js';
import { inquiry, NOW } from './answer-fixtures.js';

/** A connected, synced snapshot holding `inquiries` (given oldest first, as a person reads them). */
const snapshot = (inquiries: PendingInquiry[], status: DeviceSnapshot['status'] = 'connected') => ({
  status,
  synced: true,
  inquiries: [...inquiries].reverse(),
});
const text = (update: Update) => update.print.join('\n');

function connectedWith(inquiries: PendingInquiry[]): Update {
  return onSnapshot(initialSession, snapshot(inquiries), NOW);
}

describe('the terminal session', () => {
  it('says it is waiting, then opens a question the moment it arrives, with the time left', () => {
    const unsynced = onSnapshot(initialSession, { status: 'connected', synced: false, inquiries: [] }, NOW);
    expect(unsynced.print).toEqual(['Connected.']);
    const empty = onSnapshot(unsynced.state, snapshot([]), NOW);
    expect(empty.print).toEqual(['No questions waiting. New ones appear here (Ctrl-C to quit).']);
    expect(connectedWith([]).print).toEqual([
      'Connected.',
      'No questions waiting. New ones appear here (Ctrl-C to quit).',
    ]);
    const size = inquiry({ question: 'Which size?', options: ['S', 'M'] });
    const arrived = onSnapshot(empty.state, snapshot([size]), NOW + 2000);
    expect(text(arrived)).toContain('-- Question from shop assistant for alice -- 0:28 left');
    expect(arrived.print).toContain('    2) M');
    expect(arrived.state.draft?.inquiry.inquiryId).toBe(size.inquiryId);
    expect(promptText(arrived.state, NOW + 2000)).toBe('[0:28] pick> ');
    expect(promptText(arrived.state, NOW + 29_001)).toBe('[0:01] pick> ');
    expect(promptText(arrived.state, NOW + 31_000)).toBe('[0:00] pick> ');
  });

  it('a question with an answer window: days left, until when, and no "answer by" for one without', () => {
    const answerBy = NOW + 3 * 86_400_000;
    const week = inquiry({
      question: 'Which week?',
      options: ['this', 'next'],
      deadlines: { deviceAt: answerBy, serviceAt: answerBy, clientAt: answerBy + 40_000, answerBy },
    });
    const opened = connectedWith([week]);
    const later = NOW + 5000;
    expect(text(opened)).toContain(
      `-- Question from shop assistant for alice -- 3 d 0 h left, answer by ${formatAnswerBy(answerBy, NOW)}`,
    );
    expect(promptText(opened.state, later)).toBe('[3 d 0 h] pick> ');
    expect(promptText(opened.state, NOW + 3_600_000)).toBe('[2 d 23 h] pick> ');
    expect(onLine(opened.state, '/list', later).print).toContain(
      '*1) [3 d 0 h left] shop assistant: Which week?',
    );
    const plainOne = connectedWith([inquiry({ question: 'Now?' })]);
    expect(text(plainOne)).not.toContain('answer by');
  });

  it('answers: the effect carries the response, and further input waits for the ack', () => {
    const size = inquiry({ options: ['S', 'M'] });
    const typed = onLine(connectedWith([size]).state, '2', NOW);
    expect(typed.effects).toEqual([{ type: 'answer', inquiryId: size.inquiryId, response: 'M' }]);
    expect(onLine(typed.state, '1', NOW).print).toEqual(['! Still sending; wait a moment.']);
  });

  it('a question answered on another device closes with who answered, and the next one opens', () => {
    const first = inquiry({ question: 'First?' });
    const second = inquiry({ question: 'Second?' });
    const state = connectedWith([first, second]).state;
    expect(state.draft?.inquiry.question).toBe('First?');
    const notice: ResolvedNotice = {
      inquiryId: first.inquiryId,
      status: 'answered',
      resolvedBy: { kind: 'human', deviceId: 'p1', deviceName: 'Phone' },
      inquiry: first,
      byThisDevice: false,
    };
    const closed = onResolved(state, notice, NOW);
    expect(closed.print[0]).toBe('-- First?: answered elsewhere (on Phone)');
    expect(closed.state.draft?.inquiry.question).toBe('Second?');
  });

  it('a question that arrives while another is open is announced, not opened', () => {
    const first = inquiry({ question: 'First?' });
    const state = connectedWith([first]).state;
    const later = inquiry({ question: 'Later one' });
    const update = onSnapshot(state, snapshot([first, later]), NOW);
    expect(update.print).toEqual(['+ New: Later one (/list)']);
    expect(update.state.draft?.inquiry.question).toBe('First?');
    // A re-sync with the same inquiries announces nothing again.
    expect(onSnapshot(update.state, snapshot([first, later]), NOW).print).toEqual([]);
    const list = onLine(update.state, '/list', NOW + 5000).print;
    expect(list).toEqual([
      '*1) [0:25 left] shop assistant: First?',
      ' 2) [0:25 left] shop assistant: Later one',
    ]);
    expect(onLine(update.state, '/open 2', NOW).state.draft?.inquiry.question).toBe('Later one');
    expect(onLine(update.state, '/next', NOW).state.draft?.inquiry.question).toBe('Later one');
    expect(onLine(update.state, '/open 7', NOW).print).toEqual(['! There is no question 7 (/list)']);
  });

  it('/refuse declines; a failed send keeps the question open to try again', () => {
    const q = inquiry();
    const refused = onLine(connectedWith([q]).state, '/refuse', NOW);
    expect(refused.effects).toEqual([{ type: 'refuse', inquiryId: q.inquiryId }]);
    const failed = onAck(
      refused.state,
      q.inquiryId,
      { ok: false, error: { code: 'unavailable', message: 'not connected to the server' } },
      NOW,
    );
    expect(failed.print).toEqual(['! Not sent: not connected to the server. Try again, or /refuse.']);
    expect(failed.state).toMatchObject({ sending: false, draft: { inquiry: { inquiryId: q.inquiryId } } });
  });

  it('a quorum approval card shows the votes so far; an ending names who answered', () => {
    const q = inquiry({
      question: 'Wire 500?',
      kind: 'approval',
      options: undefined,
      quorum: 2,
      votes: [{ userId: 'ann', vote: 'approve', at: NOW }],
    });
    expect(text(connectedWith([q]))).toContain('1 of 2 approvals');
    expect(text(connectedWith([q]))).toContain('    ann approved');
    expect(
      endingText({
        status: 'answered',
        resolvedBy: { kind: 'human', userId: 'bob', deviceName: 'Phone' },
        byThisDevice: false,
      }),
    ).toBe('answered elsewhere (on Phone by bob)');
  });

  it('a counted vote on a quorum approval says how the votes stand and moves on', () => {
    const q = inquiry({ question: 'Wire 500?', kind: 'approval', options: undefined, quorum: 2 });
    const sent = onLine(connectedWith([q]).state, 'approve', NOW);
    const counted = onAck(
      sent.state,
      q.inquiryId,
      { ok: true, status: 'pending', votes: [{ userId: 'me', vote: 'approve', at: NOW }] },
      NOW,
    );
    expect(counted.print[0]).toBe(
      '-- Your vote is counted: 1 of 2 approvals so far; the others decide the rest.',
    );
    expect(counted.state.draft).toBeUndefined();
    expect(counted.state.sending).toBe(false);
  });

  it('an ack that says someone else was first closes the question with the winner', () => {
    const q = inquiry({ question: 'Raced?' });
    const sent = onLine(connectedWith([q]).state, 'mine', NOW);
    const lost = onAck(
      sent.state,
      q.inquiryId,
      {
        ok: false,
        error: { code: 'already_resolved', message: 'already answered' },
        status: 'answered',
        resolvedBy: { kind: 'human', deviceName: 'Laptop' },
      },
      NOW,
    );
    expect(lost.print[0]).toBe('-- Raced?: answered elsewhere (on Laptop)');
    expect(lost.state.draft).toBeUndefined();
  });

  it('a refused token ends the session with exit code 2; a lost connection shows in the prompt', () => {
    const rejected = onSnapshot(
      initialSession,
      {
        status: 'rejected',
        error: 'bad token',
        errorCode: 'unauthorized',
        synced: false,
        inquiries: [],
      },
      NOW,
    );
    expect(rejected.print).toEqual(['The server refused this device: unauthorized (bad token)']);
    expect(rejected.effects).toEqual([{ type: 'quit', code: 2 }]);
    const lost = onSnapshot(
      connectedWith([]).state,
      { ...snapshot([], 'reconnecting'), error: 'transport close' },
      NOW,
    );
    expect(lost.print).toEqual(['Connection lost (transport close); reconnecting...']);
    expect(promptText(lost.state, NOW)).toBe('(offline) > ');
  });

  it('commands: /help, /quit, unknown ones, and // to type an answer that starts with a slash', () => {
    const q = inquiry();
    const state: SessionState = connectedWith([q]).state;
    expect(onLine(state, '/help', NOW).print[0]).toMatch(/^Type the answer/);
    expect(onLine(state, '/quit', NOW).effects).toEqual([{ type: 'quit', code: 0 }]);
    expect(onLine(state, '/frobnicate', NOW).print).toEqual([
      '! Unknown command /frobnicate (/help lists them).',
    ]);
    expect(onLine(state, '//usr/bin', NOW).effects).toEqual([
      { type: 'answer', inquiryId: q.inquiryId, response: '/usr/bin' },
    ]);
    expect(onLine(connectedWith([]).state, 'hello', NOW).print).toEqual(['! No question is open (/list).']);
  });
});

describe('what the terminal prints', () => {
  it('shows escape sequences from agent text as visible text, never raw', () => {
    expect(plain('hi\u001b[2J\u0007there\r\nnext\ttab')).toBe('hi\\x1b[2J\\x07there\nnext\ttab');
    expect(plain('invoice \u202egpj.exe')).toBe('invoice \\u202egpj.exe');
    const q = inquiry({
      question: 'Title\u001b]0;pwned\u0007',
      asker: { name: 'bad\u001b[31m', tokenSubject: 'x' },
    });
    const opened = text(connectedWith([q]));
    expect(opened.includes('\u001b') || opened.includes('\u0007')).toBe(false);
    expect(opened).toContain('Title\\x1b]0;pwned\\x07');
  });

  it('says which agent asked and for whom, as the web card does ("an agent" when its token has no name)', () => {
    const named = inquiry({
      question: 'Which size?',
      asker: { name: 'shop assistant', tokenSubject: 'bob' },
    });
    expect(text(connectedWith([named]))).toContain('-- Question from shop assistant for bob --');
    const unnamed = inquiry({ question: 'Which size?', asker: { tokenSubject: 'bob' } });
    expect(text(connectedWith([unnamed]))).toContain('-- Question from an agent for bob --');
    const approval = inquiry({
      question: 'Drop it?',
      kind: 'approval',
      action: { server: 'db', tool: 'drop', arguments: {} },
      asker: { name: 'ops bot', tokenSubject: 'carol\u202e' },
    });
    expect(text(connectedWith([approval]))).toContain(
      '-- Approval needed (asked by ops bot for carol\\u202e) --',
    );
  });

  it('an approval shows the backend, the tool and the exact arguments', () => {
    const q = inquiry({
      question: 'May I delete 3 invoices?',
      kind: 'approval',
      critical: true,
      action: { server: 'billing', tool: 'delete_invoices', arguments: { ids: [1, 2, 3] } },
    });
    const lines = connectedWith([q]).print;
    expect(lines).toContain('-- Approval needed (asked by shop assistant for alice) - CRITICAL -- 0:30 left');
    expect(lines).toContain('  tool:      delete_invoices');
    expect(lines.join('\n')).toContain('    {\n      "ids": [\n        1,');
    expect(lines).toContain(
      'Type approve or reject (a / r). A reason the agent reads may follow: r not the prod db',
    );
    // A critical action is never allowed for a while: no "a 15" offered.
    expect(lines.join('\n')).not.toContain('a 15');
  });

  it('an approval takes a reason with a reject, edits before an approve, and "a 15" where a standing approval may be made', () => {
    const q = inquiry({
      question: 'Delete the cache?',
      kind: 'approval',
      action: { server: 'files', tool: 'delete', arguments: { path: '/srv/cache', keep: 3 } },
      editable: ['path', 'keep'],
    });
    const opened = connectedWith([q]);
    expect(text(opened)).toContain('e edits the arguments first (you may change: path, keep)');
    expect(text(opened)).toContain('a 15 approves and allows the same for 15 minutes');
    const rejected = onLine(opened.state, 'r   not the whole cache', NOW);
    expect(rejected.effects).toEqual([
      {
        type: 'answer',
        inquiryId: q.inquiryId,
        response: 'reject',
        extras: { reason: 'not the whole cache' },
      },
    ]);

    let step = onLine(opened.state, 'e', NOW);
    expect(text(step)).toContain('(1/2) path: now "/srv/cache"');
    // A value that starts with "/" is typed with two, as every answer is.
    step = onLine(step.state, '//srv/cache/tmp', NOW);
    expect(text(step)).toContain('(2/2) keep: now 3');
    step = onLine(step.state, '', NOW);
    expect(text(step)).toContain('Your edits (sent with approve): {"path":"/srv/cache/tmp"}');
    expect(onLine(step.state, 'a 20', NOW).print).toEqual(['! after approve, only 15 (minutes) may follow']);
    expect(onLine(step.state, 'a 15', NOW).effects).toEqual([
      {
        type: 'answer',
        inquiryId: q.inquiryId,
        response: 'approve',
        extras: { arguments: { path: '/srv/cache/tmp' }, allowFor: { minutes: 15 } },
      },
    ]);
    expect(onLine(opened.state, '/refuse ask Bob', NOW).effects).toEqual([
      { type: 'refuse', inquiryId: q.inquiryId, reason: 'ask Bob' },
    ]);
  });

  it('says how each inquiry ended, and on which device', () => {
    const phone = { kind: 'human' as const, deviceName: 'Phone' };
    expect(endingText({ status: 'answered', resolvedBy: phone, byThisDevice: false })).toBe(
      'answered elsewhere (on Phone)',
    );
    expect(endingText({ status: 'refused', resolvedBy: phone, byThisDevice: true })).toBe(
      'declined on this device',
    );
    expect(
      endingText({ status: 'timed_out', resolvedBy: { kind: 'device-timer' }, byThisDevice: true }),
    ).toBe('time ran out on this device');
    expect(
      endingText({ status: 'timed_out', resolvedBy: { kind: 'service-timer' }, byThisDevice: false }),
    ).toBe('time ran out (the service stopped waiting)');
    expect(endingText({ status: 'cancelled', resolvedBy: { kind: 'agent' }, byThisDevice: false })).toBe(
      'cancelled by the agent',
    );
    expect(
      endingText({
        status: 'timed_out',
        resolvedBy: { kind: 'decision-agent', strategy: 'fail_closed' },
        byThisDevice: false,
      }),
    ).toBe('decided by the fallback (fail_closed)');
  });
});
