import { afterEach, describe, expect, it } from 'vitest';
import { HIGHLIGHT_NAME, markTerms, termRanges } from './highlight';

function dom(html: string): HTMLElement {
  const el = document.createElement('div');
  el.innerHTML = html;
  document.body.append(el);
  return el;
}

afterEach(() => {
  document.body.innerHTML = '';
  delete (globalThis as { CSS?: unknown }).CSS;
  delete (globalThis as { Highlight?: unknown }).Highlight;
});

describe('termRanges', () => {
  it('finds every occurrence, any case, across elements, longest word first', () => {
    const el = dom('<p>Quixotically, he said <strong>quixotic</strong>ally.</p><pre><code>quix</code></pre>');
    const got = termRanges(el, ['quixotically', 'QUIX', ' ']).map((r) => r.toString());
    expect(got).toEqual(['Quixotically', 'quix', 'quix']);
  });

  it('skips what is marked as not the content, and finds nothing for no terms', () => {
    const el = dom('<p data-no-marks>word</p><p>a word</p><style>.word{}</style>');
    expect(termRanges(el, ['word']).map((r) => (r.startContainer.parentElement as HTMLElement).tagName)).toEqual(['P']);
    expect(termRanges(el, [])).toEqual([]);
  });
});

describe('markTerms', () => {
  it('registers the ranges as the search highlight, counts them, and finds them again when the content changes', async () => {
    const set = new Map<string, Range[]>();
    (globalThis as { CSS?: unknown }).CSS = {
      highlights: { set: (n: string, h: { ranges: Range[] }) => set.set(n, h.ranges), delete: (n: string) => set.delete(n) },
    };
    (globalThis as { Highlight?: unknown }).Highlight = class {
      ranges: Range[];
      constructor(...r: Range[]) {
        this.ranges = r;
      }
    };
    const el = dom('<p>one match</p>');
    const firsts: string[] = [];
    const action = markTerms(el, { terms: ['match'], onfirst: (r) => firsts.push(r.toString()) });
    expect(el.dataset.marks).toBe('1');
    expect(set.get(HIGHLIGHT_NAME)?.map(String)).toEqual(['match']);

    el.querySelector('p')!.textContent = 'match and match';
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    expect(el.dataset.marks).toBe('2');
    expect(firsts).toEqual(['match']);

    // The mark moves to another node, before this one in the page: this
    // one, unmarked, leaves the other's highlight alone.
    const before = dom('<p>a match elsewhere</p>');
    el.before(before);
    const other = markTerms(before, { terms: ['elsewhere'] });
    action.update({ terms: [] });
    expect(el.dataset.marks).toBe('0');
    expect(set.get(HIGHLIGHT_NAME)?.map(String)).toEqual(['elsewhere']);
    action.destroy();
    expect(set.has(HIGHLIGHT_NAME)).toBe(true);
    other.update({ terms: [] });
    expect(set.has(HIGHLIGHT_NAME)).toBe(false);
    other.destroy();
  });
});
