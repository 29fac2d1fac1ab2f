import { describe, expect, it } from 'vitest';
import { hasInvisible, showInvisible } from '../src/index.js';

describe('showInvisible', () => {
  it('shows a bidi override as an escape, so a .exe cannot read as a .pdf', () => {
    expect(showInvisible('invoice\u202Efdp.exe')).toBe('invoice\\u202efdp.exe');
    for (const code of [
      0x202a, 0x202b, 0x202c, 0x202d, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c,
    ]) {
      expect(showInvisible(`a${String.fromCodePoint(code)}b`)).toBe(
        `a\\u${code.toString(16).padStart(4, '0')}b`,
      );
    }
  });

  it('shows invisible format characters and Unicode tags', () => {
    expect(showInvisible('pay\u200Bpal')).toBe('pay\\u200bpal');
    expect(showInvisible('\uFEFFstart')).toBe('\\ufeffstart');
    expect(showInvisible('ok\u{E0041}\u{E0042}')).toBe('ok\\u{e0041}\\u{e0042}');
    expect(showInvisible('soft\u00ADhyphen')).toBe('soft\\xadhyphen');
  });

  it('shows control characters as \\xNN, keeps line breaks and tabs, folds \\r', () => {
    expect(showInvisible('\x1b[2Jfake prompt$ ')).toBe('\\x1b[2Jfake prompt$ ');
    expect(showInvisible('a\tb\nc\r\nd\re\x7f\x9b')).toBe('a\tb\nc\nd\ne\\x7f\\x9b');
  });

  it('leaves ordinary text of every script alone, and emoji joined by ZWJ', () => {
    const text = 'Größe 42? 日本語 עברית العربية 👩‍💻 ✔️';
    expect(showInvisible(text)).toBe(text);
    expect(hasInvisible(text)).toBe(false);
    expect(hasInvisible('x\u202ey')).toBe(true);
    expect(showInvisible('a\u200Db')).toBe('a\\u200db');
  });
});
