import type { RawReply } from './scripts.js';

/** What a script's first reply element means; failures are small negative numbers. */
export enum ScriptCode {
  /** Nothing written: the thing already existed (idempotent create, a resolve that lost). */
  Existed = 0,
  /** Written. */
  Done = 1,
  /** The inquiry does not exist (never created, or expired). */
  NotFound = -1,
  /** The inquiry is not pending any more. */
  NotPending = -2,
  /** The user holds the maximum number of pending inquiries. */
  OverLimit = -3,
}

/** A script answered with a code its caller cannot handle (a bug or a foreign script version). */
export class ScriptReplyError extends Error {
  constructor(
    readonly script: string,
    readonly code: number,
  ) {
    super(`Redis script ${script} answered ${ScriptCode[code] ?? 'an unknown code'} (${code})`);
    this.name = 'ScriptReplyError';
  }
}

/** A script reply with its code checked: `fields` are the payload (null where Redis had nothing). */
export interface ScriptReply<C extends ScriptCode> {
  code: C;
  fields: (string | null)[];
}

/**
 * The one place script replies are read: a code the caller expects comes back tagged; any other
 * code becomes a {@link ScriptReplyError}.
 */
export function readReply<C extends ScriptCode>(
  script: string,
  reply: RawReply,
  expected: readonly C[],
): ScriptReply<C> {
  const [code, ...payload] = reply;
  if (!(expected as readonly number[]).includes(code)) throw new ScriptReplyError(script, code);
  return {
    code: code as C,
    fields: payload.map((field) => (field === null || field === undefined ? null : String(field))),
  };
}
