/**
 * Agent text is untrusted. Characters a person cannot see can make text read as
 * something it is not: a bidirectional override (`invoice\u202Efdp.exe` displays as `invoiceexe.pdf`,
 * and reverses the text after it), zero-width and other invisible format characters, Unicode tags
 * (text hidden from people but read by models), and control characters (in a terminal an escape
 * sequence can clear the screen, fake a prompt or retitle the window).
 */

/** A character shown as a visible escape instead of itself (line breaks and tabs stay). */
function hidden(code: number): boolean {
  return (
    (code < 0x20 && code !== 0x0a && code !== 0x09) || // C0 controls
    (code >= 0x7f && code <= 0x9f) || // DEL and C1 controls
    code === 0x00ad || // soft hyphen
    code === 0x061c || // Arabic letter mark
    code === 0x180e || // Mongolian vowel separator
    (code >= 0x200b && code <= 0x200f) || // zero-width space/joiners, LRM, RLM
    (code >= 0x2028 && code <= 0x202e) || // line/paragraph separators, bidi embeddings and overrides
    (code >= 0x2060 && code <= 0x206f) || // word joiner, invisible operators, bidi isolates, deprecated format
    code === 0xfeff || // zero-width no-break space (BOM)
    (code >= 0xfff9 && code <= 0xfffb) || // interlinear annotations
    (code >= 0xe0000 && code <= 0xe007f) // tags
  );
}

const EMOJI = /\p{Extended_Pictographic}|\uFE0F/u;

/** `\x1b` for a control character, `\u202e` for others, `\u{e0041}` beyond the basic plane. */
function escapeOf(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * Text as a person should see it: every control character (except line breaks and tabs), bidi
 * control, and invisible format character shown as a visible escape (`\u202e`, `\x1b`); `\r\n` and
 * a lone `\r` become `\n`. A zero-width joiner between emoji stays (it draws one emoji). The one
 * rule for the web page and the terminal alike. Browser-safe.
 *
 * @example
 * showInvisible('invoice\u202Efdp.exe') // → 'invoice\\u202efdp.exe'
 */
export function showInvisible(text: string): string {
  const normalised = text.replace(/\r\n?/g, '\n');
  let out = '';
  let previous = '';
  for (const ch of normalised) {
    const code = ch.codePointAt(0) ?? 0;
    if (code === 0x200d && EMOJI.test(previous)) out += ch;
    else out += hidden(code) ? escapeOf(code) : ch;
    previous = ch;
  }
  return out;
}

/** True when {@link showInvisible} would change `text` (for a warning next to it). */
export function hasInvisible(text: string): boolean {
  return showInvisible(text) !== text.replace(/\r\n?/g, '\n');
}
