import type { RawReply } from './script-loader.js';

/** A script answered with a code its caller cannot handle (a bug or a foreign script version). */
export class ScriptReplyError extends Error {
  constructor(
    readonly script: string,
    readonly code: number,
    /** The code's name, when the caller's code enum has one. */
    codeName?: string,
  ) {
    super(`Redis script ${script} answered ${codeName ?? 'an unknown code'} (${code})`);
    this.name = 'ScriptReplyError';
  }
}

/** A script reply with its code checked: `fields` are the payload (null where Redis had nothing). */
export interface ScriptReply<C extends number> {
  code: C;
  fields: (string | null)[];
}

/**
 * The one place script replies are read: a code the caller expects here comes back tagged; any
 * other code becomes a {@link ScriptReplyError} (never read as some default outcome).
 *
 * @param codeNames the caller's numeric enum (its reverse mapping names a code in the error)
 * @example
 * const { code } = readReply('grant-decide-1', reply, [Code.Done, Code.NotFound], Code);
 */
export function readReply<C extends number>(
  script: string,
  reply: RawReply,
  expected: readonly C[],
  codeNames?: Readonly<Record<number, string>>,
): ScriptReply<C> {
  const [code, ...payload] = reply;
  if (!(expected as readonly number[]).includes(code)) {
    throw new ScriptReplyError(script, code, codeNames?.[code]);
  }
  return {
    code: code as C,
    fields: payload.map((field) => (field === null || field === undefined ? null : String(field))),
  };
}
