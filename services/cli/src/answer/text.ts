import { formatTimeLeft } from '@hitl/client';
import { showInvisible } from '@hitl/protocol';

/**
 * Agent text is untrusted. In a terminal the danger is control characters (an escape
 * sequence could clear the screen, fake a prompt, retitle the window or write the clipboard) and
 * invisible or bidi characters (text that reads differently from what it is): all are shown as
 * visible escapes by the one rule the web page uses too, `showInvisible` in @hitl/protocol.
 */
export function plain(text: string): string {
  return showInvisible(text);
}

/** One line of at most `max` characters (line breaks folded), for lists and notices. */
export function preview(text: string, max = 60): string {
  const line = plain(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 3)}...` : line;
}

/** Time left, as the web page shows it too (`formatTimeLeft` in @hitl/client). */
export const countdown = formatTimeLeft;

/** "  1) S" lines for a list of options. */
export function numbered(options: readonly string[], indent = '  '): string[] {
  return options.map((option, i) => `${indent}${i + 1}) ${plain(option)}`);
}

/** Indents every line of a (possibly multi-line) text. */
export function indented(text: string, indent = '  '): string[] {
  return plain(text)
    .split('\n')
    .map((line) => `${indent}${line}`);
}
