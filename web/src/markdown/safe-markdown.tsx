import { showInvisible } from '@hitl/protocol';
import type { ReactNode } from 'react';
import Markdown, { type Components } from 'react-markdown';
import { htmlAsText } from './html-as-text';

/** Links that may open (in a new tab, on a click, never by themselves). */
const SAFE_LINK = /^(https?:|mailto:)/i;

const ALLOWED = [
  'p',
  'em',
  'strong',
  'del',
  'code',
  'pre',
  'blockquote',
  'ul',
  'ol',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'br',
  'a',
  'img',
];

const components: Components = {
  a: ({ href, children }) => {
    const target = href ?? '';
    if (!SAFE_LINK.test(target)) {
      return (
        <span className="md-link md-link-blocked" title="link not followed">
          {children} <span className="md-url">({target})</span>
        </span>
      );
    }
    const label = textOf(children);
    return (
      <span className="md-link">
        <a href={target} target="_blank" rel="noopener noreferrer nofollow" referrerPolicy="no-referrer">
          {children}
        </a>
        {label === target ? null : <span className="md-url"> ({target})</span>}
      </span>
    );
  },
  // Images are never loaded (tracking pixels, spoofed screenshots): shown as a description instead.
  img: ({ alt, src }) => (
    <span className="md-image">
      [image: {alt || 'no description'}] <span className="md-url">{typeof src === 'string' ? src : ''}</span>
    </span>
  ),
};

function textOf(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(textOf).join('');
  return '';
}

/**
 * Agent text as sanitised markdown: raw HTML shown as text, no images loaded, only http(s)/mailto links
 * clickable (their address always visible), everything else shown inert; bidi, invisible and control
 * characters shown as visible escapes (`showInvisible`, the terminal's rule too).
 */
export function SafeMarkdown({ text }: { text: string }) {
  return (
    <div className="md">
      <Markdown
        remarkPlugins={[htmlAsText]}
        allowedElements={ALLOWED}
        unwrapDisallowed
        urlTransform={(url) => url}
        components={components}
      >
        {showInvisible(text)}
      </Markdown>
    </div>
  );
}

/** The question as the asker formatted it: markdown, or plain text with its line breaks. */
export function QuestionText({ text, format }: { text: string; format: string }) {
  if (format === 'text') return <p className="plain">{showInvisible(text)}</p>;
  return <SafeMarkdown text={text} />;
}
