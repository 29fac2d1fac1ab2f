import { showInvisible } from '@hitl/protocol';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe inside HTML content or a quoted attribute. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

/** Agent text for HTML a person reads (pages, mail): invisible characters made visible, then escaped. */
export function visibleHtml(value: string): string {
  return escapeHtml(showInvisible(value));
}
