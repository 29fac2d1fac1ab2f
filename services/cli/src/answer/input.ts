import { LIMITS } from '@hitl/protocol';
import { back, stepIntro, submitLine } from './draft.js';
import { inquiryLines, listLines } from './render.js';
import { open, type SessionState, type Update } from './session.js';

export const HELP = [
  'Type the answer at the prompt and press Enter. Commands:',
  '  /list        questions waiting (the open one is marked *)',
  '  /open N      answer question N of the list instead',
  '  /next        leave this one for now and open the next',
  '  /refuse      decline to answer ("I\'d rather not say"); a reason may follow: /refuse ask Bob',
  '  /back        the previous field of a form',
  '  /show        print the open question again',
  '  /quit        leave (Ctrl-C or Ctrl-D too)',
  'An answer that starts with "/" is typed with two: //like this.',
];

const none = (state: SessionState, print: string[] = []): Update => ({ state, print, effects: [] });

function openAt(state: SessionState, index: number, now: number): Update {
  const inquiry = state.pending[index];
  if (!inquiry) return none(state, [`! There is no question ${index + 1} (/list)`]);
  return open(state, inquiry, now);
}

function command(state: SessionState, name: string, arg: string, now: number): Update {
  const { draft } = state;
  switch (name) {
    case 'help':
      return none(state, HELP);
    case 'list':
      return none(state, listLines(state.pending, draft?.inquiry.inquiryId, now));
    case 'open':
      return openAt(state, Number(arg) - 1, now);
    case 'next': {
      const at = state.pending.findIndex((i) => i.inquiryId === draft?.inquiry.inquiryId);
      if (state.pending.length < 2) return none(state, ['! Nothing else is waiting.']);
      return openAt(state, (at + 1) % state.pending.length, now);
    }
    case 'show':
      if (!draft) return none(state, ['! No question is open (/list).']);
      return none(state, [...inquiryLines(draft.inquiry, now), ...stepIntro(draft)]);
    case 'refuse':
      if (!draft) return none(state, ['! No question is open (/list).']);
      return {
        state: { ...state, sending: true },
        print: [],
        effects: [
          {
            type: 'refuse',
            inquiryId: draft.inquiry.inquiryId,
            ...(arg ? { reason: arg.slice(0, LIMITS.reasonChars) } : {}),
          },
        ],
      };
    case 'back': {
      if (!draft) return none(state, ['! No question is open (/list).']);
      const result = back(draft);
      return none({ ...state, draft: result.draft }, result.say);
    }
    case 'quit':
    case 'exit':
      return { state, print: [], effects: [{ type: 'quit', code: 0 }] };
    default:
      return none(state, [`! Unknown command /${name} (/help lists them).`]);
  }
}

/** One line typed at the prompt: a `/command`, or input for the open inquiry's current step. */
export function onLine(state: SessionState, line: string, now: number): Update {
  const match = /^\s*\/(?!\/)(\w*)\s*(.*)$/.exec(line);
  if (match) {
    if (state.sending) return none(state, ['! Still sending; wait a moment.']);
    return command(state, (match[1] ?? '').toLowerCase(), (match[2] ?? '').trim(), now);
  }
  const text = line.replace(/^(\s*)\/\//, '$1/');
  const { draft } = state;
  if (!draft) return none(state, text.trim() ? ['! No question is open (/list).'] : []);
  if (state.sending) return none(state, ['! Still sending; wait a moment.']);
  const result = submitLine(draft, text);
  const next = { ...state, draft: result.draft };
  if (result.send === undefined) return none(next, result.say);
  return {
    state: { ...next, sending: true },
    print: result.say,
    effects: [
      {
        type: 'answer',
        inquiryId: draft.inquiry.inquiryId,
        response: result.send,
        ...(result.extras && Object.keys(result.extras).length > 0 ? { extras: result.extras } : {}),
      },
    ],
  };
}
