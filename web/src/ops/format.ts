import { showInvisible } from '@hitl/protocol';

/** "14:03:07" today, "12 Mar 14:03" otherwise. */
export function formatTime(ms: number | undefined): string {
  if (ms === undefined) return '–';
  const date = new Date(ms);
  const sameDay = new Date().toDateString() === date.toDateString();
  return sameDay
    ? date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString(undefined, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

/** One line of plain text from agent text (shown as text, never as HTML; hidden characters escaped). */
export function oneLine(text: string, max = 90): string {
  const line = showInvisible(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** An answer or output as text: strings as they are, anything else as JSON (hidden characters escaped). */
export function showValue(value: unknown): string {
  if (value === undefined) return '–';
  return showInvisible(typeof value === 'string' ? value : JSON.stringify(value));
}
