import { showInvisible } from '@hitl/protocol';
import type { MrkdwnElement, PlainTextElement } from '@slack/types';

/*
 * Agent text as Slack shows it. Pure: no I/O. Slack reads `&`, `<` and `>` as its own control
 * characters (`<https://x|label>` is a link, `<!channel>` pings everyone), so agent text has them
 * escaped; characters a person cannot see are shown as escapes first (the same rule as every device).
 */

/** Slack's own limit on one text object (section text, plain_text in a modal). */
export const SLACK_TEXT_CHARS = 3000;

/** `&`, `<`, `>` as Slack's entities: the only three Slack asks apps to escape. */
export function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Agent text for mrkdwn: invisible characters shown, then Slack's control characters escaped. */
export function slackSafe(text: string): string {
  return escapeSlack(showInvisible(text));
}

/**
 * Agent text cut into mrkdwn pieces of at most `max` characters each once escaped (never inside an
 * entity or a surrogate pair), at most `pieces` of them; a cut is marked with `…`.
 */
export function slackChunks(text: string, max = SLACK_TEXT_CHARS, pieces = 3): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const ch of showInvisible(text)) {
    const escaped = escapeSlack(ch);
    if (current.length + escaped.length > max) {
      chunks.push(current);
      current = '';
      if (chunks.length === pieces) {
        const last = chunks[pieces - 1] ?? '';
        chunks[pieces - 1] = `${trimEnd(last, max - 1)}…`;
        return chunks;
      }
    }
    current += escaped;
  }
  if (current) chunks.push(current);
  return chunks;
}

/** One line of agent text for mrkdwn, at most `max` characters once escaped (whitespace folded). */
export function slackLine(text: string, max: number): string {
  const [first = ''] = slackChunks(text.replace(/\s+/g, ' ').trim(), max, 1);
  return first;
}

/** Agent text for a `plain_text` object (a button, an option, a modal label): visible, folded, cut. */
export function plainLine(text: string, max: number): string {
  const line = showInvisible(text).replace(/\s+/g, ' ').trim();
  const chars = [...line];
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : line || '-';
}

/** `text` cut to at most `max` characters, never inside an entity (`&amp;`) or a surrogate pair. */
function trimEnd(text: string, max: number): string {
  let cut = [...text];
  while (cut.join('').length > max) cut = cut.slice(0, -1);
  const joined = cut.join('');
  const amp = joined.lastIndexOf('&');
  return amp >= 0 && !joined.slice(amp).includes(';') ? joined.slice(0, amp) : joined;
}

/**
 * A time in Slack's own date formatting: each reader sees it in their own zone and locale
 * (`<!date^…>`); clients that cannot render it show the UTC fallback.
 */
export function slackDate(epochMs: number): string {
  const seconds = Math.floor(epochMs / 1000);
  const fallback = `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${seconds}^{date_short_pretty} at {time}|${fallback}>`;
}

/** A link as Slack writes it; `label` is our own text, escaped. */
export function slackLink(url: string, label: string): string {
  return `<${url.replace(/[<>|]/g, encodeURIComponent)}|${escapeSlack(label)}>`;
}

export function mrkdwn(text: string): MrkdwnElement {
  // `verbatim`: agent text is shown as written; Slack does not turn URLs or names in it into links.
  return { type: 'mrkdwn', text, verbatim: true };
}

export function plain(text: string): PlainTextElement {
  return { type: 'plain_text', text, emoji: false };
}
