// Citations: found in text as the model writes them, made into our own
// buttons only after sanitizing, unverified when the turn was never given
// that number, and never from anything the model's HTML says.
import { describe, expect, it } from 'vitest';
import { citeOf, linkCitations, sourcesByNumber, splitCitations, UNVERIFIED } from './citations';
import { renderMarkdown } from './markdown';
import type { Source } from './types';

const source = (n: number, over: Partial<Source> = {}): Source => ({
  n,
  kind: 'passage',
  document_id: 'd1',
  passage_id: n,
  version: 'v1',
  document: 'report.pdf',
  page: 3,
  heading: 'Results › Revenue',
  text: `passage ${n}`,
  ...over,
});

function linked(markdown: string, sources: Source[]) {
  const root = document.createElement('div');
  root.innerHTML = renderMarkdown(markdown);
  const found = linkCitations(root, sourcesByNumber(sources));
  return { root, found };
}

describe('splitCitations', () => {
  it.each([
    ['Grew [1].', [{ text: 'Grew ' }, { cite: [1] }, { text: '.' }]],
    ['Both [1, 2] and [3,4]', [{ text: 'Both ' }, { cite: [1, 2] }, { text: ' and ' }, { cite: [3, 4] }]],
    ['[12]', [{ cite: [12] }]],
    ['a[1] is an index', [{ text: 'a[1] is an index' }]],
    ['[1][2]', [{ cite: [1] }, { text: '[2]' }]],
    ['[x] and [1a] and []', [{ text: '[x] and [1a] and []' }]],
  ])('%s', (text, want) => {
    expect(splitCitations(text)).toEqual(want);
  });
});

describe('linkCitations', () => {
  it('makes a given number a button that opens it, labelled with its document and page', () => {
    const { root, found } = linked('Revenue grew [1].', [source(1)]);
    expect(found).toBe(1);
    const b = root.querySelector('button.cite')!;
    expect(b.textContent).toBe('1');
    expect(b.getAttribute('aria-label')).toBe('Source 1: report.pdf, page 3');
    expect(citeOf(b)).toBe(1);
    expect(root.textContent?.trim()).toBe('Revenue grew [1].');
  });

  it('marks a number never given as unverified, visibly and for screen readers', () => {
    const { root } = linked('Both [1, 9].', [source(1)]);
    expect(root.querySelectorAll('button.cite')).toHaveLength(1);
    const u = root.querySelector('.cite-unverified')!;
    expect(u.getAttribute('title')).toBe(UNVERIFIED);
    expect(u.textContent).toContain('9');
    expect(u.textContent).toContain(UNVERIFIED);
    expect(u.querySelector('.cite-mark')?.textContent).toBe('?');
  });

  it('leaves code, links and indexes alone', () => {
    const { root, found } = linked('`x[1]` and [link [1]](https://example.com) and\n\n```\ny = a [1]\n```\n', [source(1)]);
    expect(found).toBe(0);
    expect(root.querySelector('.cite, .cite-unverified')).toBeNull();
  });

  it('keeps a model answer with an event handler inert, and links its citation', () => {
    const { root } = linked('<img src=x onerror="window.pwned=1">[1] <button class="cite" onclick="alert(1)">2</button>', [
      source(1),
      source(2),
    ]);
    const img = root.querySelector('img');
    expect(img?.getAttribute('onerror') ?? null).toBeNull();
    expect(root.innerHTML).not.toMatch(/onerror|onclick/);
    const buttons = root.querySelectorAll('button');
    // The model's button is gone; ours is the only one, and made by us.
    expect(buttons).toHaveLength(1);
    expect(citeOf(buttons[0])).toBe(1);
    expect((window as unknown as { pwned?: number }).pwned).toBeUndefined();
  });

  it('does not treat an element that looks like a citation as one', () => {
    const fake = document.createElement('button');
    fake.className = 'cite';
    fake.textContent = '1';
    expect(citeOf(fake)).toBeUndefined();
  });
});
