import { describe, expect, it } from 'vitest';
import { escapeHtml, highlight, renderMarkdown } from './markdown';

const ALLOWED = new Set([
  'A', 'ABBR', 'B', 'BLOCKQUOTE', 'BR', 'BUTTON', 'CODE', 'DEL', 'DETAILS', 'DIV', 'EM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HR', 'I', 'IMG', 'INPUT',
  'KBD', 'LI', 'MARK', 'OL', 'P', 'PRE', 'S', 'SPAN', 'STRONG', 'SUB', 'SUMMARY', 'SUP', 'TABLE', 'TBODY', 'TD', 'TH', 'THEAD', 'TR', 'UL',
]);

/** Asserts the rendered HTML cannot run anything or fetch anything. */
function assertInert(html: string) {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  for (const el of Array.from(tpl.content.querySelectorAll('*'))) {
    expect(ALLOWED.has(el.tagName), `tag ${el.tagName} in ${html}`).toBe(true);
    for (const attr of Array.from(el.attributes)) {
      expect(attr.name.startsWith('on'), `handler ${attr.name} in ${html}`).toBe(false);
      expect(attr.name, `style in ${html}`).not.toBe('style');
      expect(attr.value.toLowerCase().replace(/\s/g, ''), `${attr.name}=${attr.value}`).not.toMatch(/^(javascript|vbscript|data:text)/);
    }
    if (el.tagName === 'A' && el.hasAttribute('href')) {
      expect(el.getAttribute('href')).toMatch(/^(https?:|mailto:)/i);
      expect(el.getAttribute('target')).toBe('_blank');
      expect(el.getAttribute('rel')).toBe('noopener noreferrer');
    }
    if (el.tagName === 'IMG' && el.hasAttribute('src')) expect(el.getAttribute('src')).toMatch(/^data:image\//);
    if (el.tagName === 'INPUT') {
      expect(el.getAttribute('type')).toBe('checkbox');
      expect(el.hasAttribute('disabled')).toBe(true);
    }
  }
  expect(html).not.toMatch(/<script|<iframe|<style|<svg|<object|<embed|<form|<link|<meta|<base/i);
}

const corpus: Array<[string, string]> = [
  ['script tag', '<script>alert(1)</script>'],
  ['script in markdown text', 'Hello <script src="https://evil.example/x.js"></script> world'],
  ['img onerror', '<img src=x onerror=alert(1)>'],
  ['img onerror, quoted', '<img src="x" onerror="alert(document.cookie)">'],
  ['javascript: link, html', '<a href="javascript:alert(1)">click</a>'],
  ['javascript: link, markdown', '[click](javascript:alert(1))'],
  ['javascript: link, encoded', '[click](jav&#x09;ascript:alert(1))'],
  ['javascript: link, mixed case and spaces', '[x]( JaVaScRiPt:alert(1))'],
  ['vbscript link', '[x](vbscript:msgbox(1))'],
  ['svg onload', '<svg onload=alert(1)><circle r="4"/></svg>'],
  ['svg with script', '<svg><script>alert(1)</script></svg>'],
  ['iframe', '<iframe src="https://evil.example"></iframe>'],
  ['iframe srcdoc', '<iframe srcdoc="<script>alert(1)</script>"></iframe>'],
  ['style tag', '<style>body{display:none}</style>'],
  ['style attribute', '<p style="position:fixed;inset:0;background:red">x</p>'],
  ['css url()', '<div style="background:url(https://evil.example/track.png)">x</div>'],
  ['data: html link, markdown', '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)'],
  ['data: html link, html', '<a href="data:text/html,<script>alert(1)</script>">x</a>'],
  ['markdown image remote', '![tracker](https://evil.example/pixel.png)'],
  ['markdown image javascript', '![x](javascript:alert(1))'],
  ['markdown image with title trick', '![x" onerror="alert(1)](https://e.example/a.png "t\\" onload=\\"alert(1)")'],
  ['html image remote', '<img src="https://evil.example/pixel.png">'],
  ['link title injection', '[x](https://ok.example "a\\" onmouseover=\\"alert(1)")'],
  ['autolink javascript', '<javascript:alert(1)>'],
  ['entities', '&lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;'],
  ['entity-encoded javascript href', '<a href="&#106;avascript:alert(1)">x</a>'],
  ['object and embed', '<object data="x.swf"></object><embed src="x.swf">'],
  ['form and input', '<form action="https://evil.example"><input type="text" name="q"><button>go</button></form>'],
  ['meta refresh', '<meta http-equiv="refresh" content="0;url=https://evil.example">'],
  ['base tag', '<base href="https://evil.example/">'],
  ['link tag', '<link rel="stylesheet" href="https://evil.example/x.css">'],
  ['math', '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>'],
  ['details ontoggle', '<details open ontoggle=alert(1)><summary>x</summary></details>'],
  ['button formaction', '<button formaction="javascript:alert(1)">x</button>'],
  ['code fence with html', '```html\n<script>alert(1)</script>\n```'],
  ['inline code with html', '`<img src=x onerror=alert(1)>`'],
  ['nested quotes', '<a href="https://ok.example" onclick="alert(1)">x</a>'],
  ['mutation xss', '<noscript><p title="</noscript><img src=x onerror=alert(1)>">'],
  ['data attributes', '<span data-copy="1" data-x="y">x</span>'],
  ['task list', '- [x] done\n- [ ] todo'],
];

describe('renderMarkdown: every item of the XSS corpus renders inert', () => {
  it.each(corpus)('%s', (_name, src) => {
    assertInert(renderMarkdown(src));
  });
});

describe('renderMarkdown', () => {
  it('renders GFM: headings, emphasis, tables, lists', () => {
    const html = renderMarkdown('# Title\n\n**bold** and *it*\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n1. one\n2. two');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<table>');
    expect(html).toContain('<ol>');
  });

  it('opens links in a new context with no opener or referrer', () => {
    const html = renderMarkdown('[docs](https://example.com/docs)');
    expect(html).toContain('href="https://example.com/docs"');
    expect(html).toContain('target="_blank"');
    expect(html).toContain('rel="noopener noreferrer"');
  });

  it('removes links that would navigate the app window', () => {
    const html = renderMarkdown('[rel](./other.md) [hash](#top)');
    expect(html).not.toContain('href=');
  });

  it('does not load remote images, and shows them as a link instead', () => {
    const html = renderMarkdown('![chart](https://example.com/c.png)');
    expect(html).not.toContain('<img');
    expect(html).toContain('[image: chart]');
    expect(html).toContain('href="https://example.com/c.png"');
  });

  it('keeps data: images', () => {
    const html = renderMarkdown('![dot](data:image/png;base64,iVBORw0KGgo=)');
    expect(html).toContain('<img src="data:image/png;base64,iVBORw0KGgo="');
  });

  it('highlights code blocks and adds a copy button', () => {
    const html = renderMarkdown('```python\ndef f():\n    return 1\n```');
    expect(html).toContain('class="code-block"');
    expect(html).toContain('data-copy="1"');
    expect(html).toContain('hljs-keyword');
    expect(html).toContain('>python<');
  });

  it('escapes code in an unknown language', () => {
    const html = renderMarkdown('```nosuchlang\n<b>x</b>\n```');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
  });

  it('renders an unfinished code fence while streaming', () => {
    const html = renderMarkdown('Text\n\n```js\nconst a = 1;');
    expect(html).toContain('code-block');
    assertInert(html);
  });

  it('shows HTML entities as text', () => {
    const tpl = document.createElement('template');
    tpl.innerHTML = renderMarkdown('&lt;script&gt;');
    expect(tpl.content.textContent?.trim()).toBe('<script>');
  });

  it('returns nothing for empty input', () => {
    expect(renderMarkdown('')).toBe('');
  });
});

describe('helpers', () => {
  it('escapeHtml escapes the five characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('highlight knows aliases', () => {
    expect(highlight('const x = 1', 'ts')).toContain('hljs-keyword');
    expect(highlight('<x>', '')).toBe('&lt;x&gt;');
  });
});
