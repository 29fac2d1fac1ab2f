import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { QuestionText, SafeMarkdown } from '../../src/markdown/safe-markdown';

const html = (text: string) => renderToStaticMarkup(<SafeMarkdown text={text} />);

describe('safe markdown', () => {
  it('shows raw HTML as text: nothing runs and nothing loads', () => {
    const out = html(
      'Hi <img src=x onerror="alert(1)"> <script>alert(2)</script>\n\n<iframe src="https://evil.example"></iframe>',
    );
    expect(out).not.toMatch(/<(img|script|iframe)/i);
    expect(out).toContain('&lt;script&gt;alert(2)&lt;/script&gt;');
    expect(out).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;');
  });

  it('never loads images and never links anything but http(s) and mailto', () => {
    const out = html(
      '![pixel](https://tracker.example/p.png) [click](javascript:alert(1)) [x](data:text/html,hi)',
    );
    expect(out).not.toMatch(/<img/);
    expect(out).toContain('[image: pixel]');
    expect(out).not.toMatch(/href="(javascript|data):/);
    expect(out).toContain('(javascript:alert(1))');
  });

  it('opens safe links only on a click, in a new tab, with the real address shown', () => {
    const out = html('[your bank](https://evil.example/login)');
    expect(out).toContain('rel="noopener noreferrer nofollow"');
    expect(out).toContain('target="_blank"');
    expect(out).toContain('(https://evil.example/login)');
  });

  it('renders emphasis and lists; plain-text questions keep their text as is', () => {
    expect(html('**Which** size?\n\n- S\n- M')).toMatch(/<strong>Which<\/strong>[\s\S]*<li>S<\/li>/);
    expect(renderToStaticMarkup(<QuestionText text={'**not bold**\nline 2'} format="text" />)).toBe(
      '<p class="plain">**not bold**\nline 2</p>',
    );
  });

  it('shows bidi overrides, zero-width and control characters as escapes, in markdown and plain text', () => {
    const out = html('**invoice\u202Efdp.exe** and pay\u200Bpal');
    expect(out).toContain('<strong>invoice\\u202efdp.exe</strong>');
    expect(out).toContain('pay\\u200bpal');
    expect(out).not.toMatch(/[\u202a-\u202e\u200b-\u200f]/u);
    const plain = renderToStaticMarkup(<QuestionText text={'rm -rf\u2066 /\u0007'} format="text" />);
    expect(plain).toBe('<p class="plain">rm -rf\\u2066 /\\x07</p>');
  });
});
