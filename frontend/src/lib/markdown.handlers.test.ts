// Event handler attributes never reach a parser tied to the page: Chromium
// checks each one against the Content-Security-Policy as soon as any such
// document parses it, so a model's hostile markup made the console report
// inline handlers the policy refused, though nothing ran. withoutHandlers
// drops them from the tags, as the browser's tokenizer reads tags, before
// DOMPurify parses the rest.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderMarkdown, withoutHandlers } from './markdown';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('withoutHandlers', () => {
  it.each([
    ['an unquoted handler', '<img src=x onerror=alert(1)>', '<img src=x>'],
    ['a quoted one', '<div onclick="alert(7)">click me</div>', '<div>click me</div>'],
    ['single quotes holding a ">"', `<a href='#' onmouseover='a(">")'>x</a>`, `<a href='#'>x</a>`],
    ['after a slash', '<svg/onload=alert(5)><circle r="4"/></svg>', '<svg><circle r="4"/></svg>'],
    ['straight after a quoted value', '<img src="x"onerror=alert(1)>', '<img src="x">'],
    ['in capitals, spaced around =', '<IMG SRC=x ONERROR = "alert(1)" alt=y>', '<IMG SRC=x alt=y>'],
    ['every one of several', '<p onclick=a onmouseover=b title=t onfocus=c>', '<p title=t>'],
    ['a tag the text ends inside', '<img src=x onerror=alert(1)', '<img src=x'],
    ['one over lines', '<img\nsrc=x\nonerror=alert(1)\n>', '<img\nsrc=x\n>'],
  ])('drops %s', (_name, html, want) => {
    expect(withoutHandlers(html)).toBe(want);
  });

  it.each([
    ['text that says on=', '<p>turn it on=now, or not <b>on</b></p>'],
    ['a value holding a handler', '<a title="x onclick=y" href="z">a</a>'],
    ['an unquoted value holding one', '<img src=x/onerror=y>'],
    ['an attribute only starting like one', '<td colspan=2 data-one="1">x</td>'],
    ['escaped markup', '<p>&lt;img src=x onerror=alert(1)&gt;</p>'],
    ['a comment', '<!-- <img onerror=x> --><p>a</p>'],
    ['an end tag', '</p onclick=x>'],
    ['a lone <', '<p>1 < 2 onerror=3</p>'],
  ])('keeps %s as it is', (_name, html) => {
    expect(withoutHandlers(html)).toBe(html);
  });
});

// The fakellm "xss" answer (backend/llm/llmtest/cmd/fakellm): what the
// sanitizer parses holds no handler, and the result is as safe as before.
const XSS =
  'Here is some markup that must stay inert:\n\n' +
  '<img src=x onerror=alert(1)>\n\n' +
  '[a javascript link](javascript:alert(2)) and <a href="javascript:alert(3)">a raw one</a>\n\n' +
  '<script>alert(4)</script><svg onload=alert(5)><circle r="4"/></svg>\n\n' +
  '<iframe src="javascript:alert(6)"></iframe> <div onclick="alert(7)">click me</div>\n\n' +
  'The end of the xss answer.';

describe('rendering hostile markup', () => {
  it('never hands a parser a handler', () => {
    const parsed: string[] = [];
    const real = DOMParser.prototype.parseFromString;
    vi.spyOn(DOMParser.prototype, 'parseFromString').mockImplementation(function (
      this: DOMParser,
      s: Parameters<DOMParser['parseFromString']>[0],
      type: DOMParserSupportedType,
    ) {
      parsed.push(String(s));
      return real.call(this, s as string, type);
    });
    const html = renderMarkdown(XSS + ` ${Math.random()}`);
    expect(parsed.length).toBeGreaterThan(0);
    for (const s of parsed) expect(s).not.toMatch(/[\s/"']on[a-z]+\s*=/i);
    expect(html).toContain('The end of the xss answer.');
    expect(html).toContain('click me');
    expect(html).not.toMatch(/onerror|onload|onclick|<script|<iframe|javascript:/i);
  });
});
