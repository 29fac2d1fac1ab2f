import { showInvisible } from '@hitl/protocol';

/**
 * Agent text is untrusted (DESIGN §5). In a terminal the danger is control characters (an escape
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

/** "1:05" for 65 000 ms, rounded up, so "0:00" means the deadline has passed. */
export function countdown(ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = String(seconds % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

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
