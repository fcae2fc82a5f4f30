// Streaming markdown renders what the whole text renders: an answer fed in
// random chunks (seeded, cut in awkward places: inside ** and |---|, in
// fences, between \r and \n) shows, at every moment it is up to date, the
// same sanitized HTML as that much text rendered at once, and ends with
// the HTML of the whole answer.
import { describe, expect, it } from 'vitest';
import { MarkdownStream, renderMarkdown, renderOnePass } from './markdown';
import { mulberry32 } from './prng';
import { longAnswer, pieces } from './markdown.answer';

// A small seeded PRNG, so a failure names the seed that found it.
const prng = mulberry32;

const filler = Array.from({ length: 12 }, (_, i) => `Paragraph ${i} says *something* about item ${i}, with \`code ${i}\` in it.`).join(
  '\n\n',
);

/** name, text, and whether it has raw HTML spanning blocks (then one pass differs). */
const corpus: Array<[string, string, boolean?]> = [
  [
    'list items with continuation paragraphs',
    'Steps:\n\n1. First item\n\n   Its continuation paragraph, indented.\n\n2. Second item\n\n   More text\n\n   ```js\n   code in the item\n   ```\n\n3. Third\n\nAfter the list.\n',
  ],
  [
    'nested lists',
    '- a\n  - b\n    - c\n      deep text\n  - d\n- e\n\n* x\n* y\n\n1) one\n2) two\n   - nested bullet\n   - another\n\n10. ten\n11. eleven\n',
  ],
  [
    'tables',
    'Intro line\n| a | b |\n|---|:-:|\n| 1 | **2** |\n| 3 | `4` |\n\n| single |\n|---|\n| x |\n\nText after\n\n| Region | Revenue |\n|---|---:|\n| North | 42.0k |\n| South | 31.5k |\n',
  ],
  ['a paragraph line straight before a table', 'foo\n| a |\n|---|\n| 1 |\n\nbar\n| a | b |\n|---|---|\n| 1 | 2 |\n'],
  [
    'code fences, one never closed',
    "```python\ndef f():\n    return '```'\n```\n\n~~~\ntilde\n~~~\n\n````md\n```\ninner\n```\n````\n\nText\n\n```js\nconst unterminated = 1;\nlet more = `tpl`;\n",
  ],
  [
    'reference links defined far away',
    'See [the docs][docs], [Other] and ![a picture][pic], and [not defined].\n\n' +
      filler +
      '\n\n[docs]: https://example.com/docs "Docs"\n[other]: <https://example.com/o>\n[pic]: https://example.com/p.png\n[docs]: https://example.com/second-definition-loses\n',
  ],
  ['definitions inside a list and a quote', '- item [x]\n\n  [x]: https://x.example\n\n> [q]: https://q.example\n\nUse [q] and [x].\n'],
  [
    'raw HTML',
    'Inline <kbd>Ctrl</kbd>+<kbd>K</kbd>, <span class="x" style="color:red">s</span> and <b>bold</b>.\n\n<div>\n<b>html block</b>\n</div>\n\n<button class="btn primary">Allow once</button>\n\n<!-- comment -->\n\n<table><tr><td>cell</td></tr></table>\n\n<img src="https://e.example/x.png" onerror="alert(1)">\n',
  ],
  [
    'raw HTML spanning blocks',
    '<details><summary>More</summary>\n\nhidden **md**\n\n</details>\n\n<div class="turn">\n\n- in a div\n\n</div>\n',
    true,
  ],
  [
    'headings, rules and quotes',
    'Title\n=====\n\nSub\n---\n\n> quote\nlazy line\n\n> - list in a quote\n\n***\n\n# H1 #\n\nPara\n#notheading\n#\n\n## after\n',
  ],
  [
    'blocks straight after a paragraph',
    'Some **bold and *nested* emphasis** text\nnext line\n## Heading right after\nText with `code`, ~~del~~ and https://auto.example/link.\n- a list right after\n> a quote right after\n```\nfence right after\n```\n',
  ],
  ['tasks', '- [x] done\n- [ ] todo\n\n1. [x] a numbered task\n\n- [ ] loose\n\n- [x] list\n'],
  ['indented code', 'Para\n\n    indented code\n\n    more code\n\nEnd\n    not code (lazy)\n'],
  ['CRLF line ends', 'Line one\r\n\r\n- a\r\n- b\r\n\r\n| h |\r\n|---|\r\n| c |\r\n\r\n```\r\ncode\r\n```\r\n'],
  [
    'words typed onto paragraphs',
    Array.from({ length: 150 }, (_, i) => `tok${i}`).join(' ') +
      ' then www.example.com and foo_bar_baz, a@b.example and **strong** 1. x\n' +
      'tok 2 words  \nafter a hard break\n\n1 not a list\n\nwords and [ref] and more words\n\n[ref]: https://example.com/ref\n\nword',
  ],
  ['a long answer', filler + '\n\n' + filler.replace(/Paragraph/g, '- Item')],
  [
    'the scripted answer',
    'Here is **revenue by region** for Q3, from your data:\n\n| Region | Revenue |\n|---|---:|\n| North | 42.0k |\n| South | 31.5k |\n| East | 18.2k |\n| West | 12.9k |\n\nNorth leads with about a third of the total. A query to reproduce it:\n\n```sql\nSELECT region, SUM(revenue) AS revenue\nFROM sales\nGROUP BY region\nORDER BY revenue DESC;\n```\n',
  ],
];

const AWKWARD = /[*_|`[\]\n\r#>\-:!<]/;

/** Cuts text into chunks of random sizes, often right before or after a markdown character. */
function chunks(text: string, rnd: () => number): string[] {
  const max = 1 + Math.floor(rnd() * 30);
  const out: string[] = [];
  let pos = 0;
  while (pos < text.length) {
    let end = pos + 1 + Math.floor(rnd() * max);
    if (rnd() < 0.5) {
      let i = pos + 1;
      while (i < text.length && !AWKWARD.test(text[i]!)) i++;
      end = i + (rnd() < 0.5 ? 0 : 1);
    }
    end = Math.min(Math.max(end, pos + 1), text.length);
    out.push(text.slice(pos, end));
    pos = end;
  }
  return out;
}

/** How many views streamed so far were words appended (view.tail), and how many were held back. */
const seen = { appended: 0, held: 0 };

/** Streams text in chunks on a fake clock; checks every up-to-date view; returns the last. */
function stream(text: string, seed: number): string {
  const rnd = prng(seed);
  let t = 0;
  // Each reading of the clock moves it 0 to 6 ms: renders "cost" that much,
  // so some updates are held back by the throttle and some are not.
  const s = new MarkdownStream({ now: () => (t += rnd() * 6), free: 0 });
  let shown = '';
  const pieces = chunks(text, rnd);
  // Rendering each prefix whole is the slow part: compare about 25 of them.
  const sample = Math.min(1, 25 / pieces.length);
  for (const piece of pieces) {
    shown += piece;
    t += rnd() * 40;
    const view = s.update(shown, true);
    if (view.tail) seen.appended++;
    if (view.wait !== null) seen.held++;
    if (view.wait !== null) expect(view.wait).toBeGreaterThan(0);
    else if (rnd() < sample) expect(view.blocks.join(''), `seed ${seed}, after ${JSON.stringify(shown)}`).toBe(renderMarkdown(shown));
  }
  // The stream pauses: once the wait has passed, the view catches up.
  let view = s.update(shown, true);
  if (view.wait !== null) {
    t += view.wait;
    view = s.update(shown, true);
  }
  expect(view.wait).toBeNull();
  expect(view.blocks.join(''), `seed ${seed}, live`).toBe(renderMarkdown(text));
  return s.update(text, false).blocks.join('');
}

const SEEDS = 40;

describe('MarkdownStream', () => {
  it('appends words typed onto a paragraph to its HTML, and says so', () => {
    const s = new MarkdownStream();
    const first = s.update('# Title\n\nHello wor', true);
    const next = s.update('# Title\n\nHello world and more', true);
    expect(next.tail).toEqual({ base: first.blocks[1], text: 'ld and more' });
    expect(next.blocks.join('')).toBe(renderMarkdown('# Title\n\nHello world and more'));
    // Not words: rendered.
    const emphasis = s.update('# Title\n\nHello world and more *em*', true);
    expect(emphasis.tail).toBeUndefined();
    expect(emphasis.blocks[1]).toBe('<p>Hello world and more <em>em</em></p>\n');
  });

  it('holds a long open block back for 25 times what rendering and layout cost, and a short one never', () => {
    let t = 0;
    const s = new MarkdownStream({ now: () => t, free: 100 });
    const long = 'word '.repeat(40);
    s.update(long, true);
    expect(s.holding).toBe(true);
    s.spent(4); // the view's layout of it took 4 ms
    t = 60;
    const held = s.update(long + 'more', true);
    expect(held.wait).toBe(40);
    expect(held.blocks.join('')).toBe(renderMarkdown(long));
    t = 100;
    const shown = s.update(long + 'more', true);
    expect(shown.wait).toBeNull();
    expect(shown.blocks.join('')).toBe(renderMarkdown(long + 'more'));

    const short = new MarkdownStream({ now: () => t });
    short.update('a few words', true);
    short.spent(1000);
    expect(short.holding).toBe(false);
    expect(short.update('a few words more', true).wait).toBeNull();
  });

  it.each([
    ['a word with an underscore', 'foo_bar', 'baz'],
    ['a www link', 'see www.example', 'com'],
    ['a list marker to be', '1.', ' item'],
    ['a heading to be', '#', 'heading'],
    ['a definition to be', '[x]:', ' https://example.com'],
    ['emphasis', 'an *em', 'ph'],
  ])('renders, not appends, after %s', (_name, before, words) => {
    const s = new MarkdownStream();
    s.update(before, true);
    const view = s.update(before + words, true);
    expect(view.tail).toBeUndefined();
    expect(view.blocks.join('')).toBe(renderMarkdown(before + words));
  });
});

describe('streamed markdown renders as the whole text does', () => {
  it.each(corpus)(
    '%s',
    (_name, text) => {
      const whole = renderMarkdown(text);
      expect(whole.length).toBeGreaterThan(0);
      for (let seed = 1; seed <= SEEDS; seed++) expect(stream(text, seed), `seed ${seed}`).toBe(whole);
    },
    120_000,
  );

  it('renders all of the corpus in one answer, streamed, as it does whole', () => {
    const text = corpus.map(([, t]) => t.replace(/\r/g, '')).join('\n\n');
    const whole = renderMarkdown(text);
    for (let seed = 1; seed <= 3; seed++) expect(stream(text, seed * 7919)).toBe(whole);
  }, 180_000);

  it('has streamed both appended words and held-back views', () => {
    const before = { ...seen };
    const [, words] = corpus.find(([name]) => name === 'words typed onto paragraphs')!;
    for (let seed = 1; seed <= 5; seed++) stream(words, seed);
    expect(seen.appended).toBeGreaterThan(before.appended);
    expect(seen.held).toBeGreaterThan(before.held);
  });

  it.each(corpus.filter(([, , spans]) => !spans))('%s: blocks render as one pass over the text does', (_name, text) => {
    expect(renderMarkdown(text)).toBe(renderOnePass(text));
  });
});

describe('the cost of an update does not grow with the answer', () => {
  // Streams an answer of n blocks in 24-character pieces; returns, per
  // update, what it lexed and rendered (MarkdownStream.work), and checks
  // the end against the whole text.
  function costs(n: number) {
    const text = longAnswer(n);
    const s = new MarkdownStream({ now: () => 0 });
    let shown = '';
    const work = pieces(text, 24).map((piece) => {
      shown += piece;
      const view = s.update(shown, true);
      return { ...s.work, from: view.from, blocks: view.blocks.length };
    });
    expect(s.update(text, false).blocks.join('')).toBe(renderMarkdown(text));
    return { text, work };
  }

  it('lexes the open blocks only and renders as many blocks an update at 1,500 blocks as at 30', () => {
    const short = costs(30);
    const long = costs(1500);
    // The longest block of the answer is under 90 characters, the last
    // two blocks and the blank lines after them with a piece under 250.
    const bound = 250;
    expect(long.text.length).toBeGreaterThan(100 * bound);
    const max = (work: typeof long.work, key: 'lexed' | 'rendered' | 'renderedChars') => Math.max(...work.map((w) => w[key]));
    for (const { work } of [short, long]) expect(max(work, 'lexed')).toBeLessThanOrEqual(bound);
    // The definitions (in the first 21 blocks) render again the blocks
    // before them that refer to one: the same few in both answers.
    expect(max(long.work, 'rendered')).toBeLessThanOrEqual(max(short.work, 'rendered'));
    expect(max(long.work, 'renderedChars')).toBeLessThanOrEqual(max(short.work, 'renderedChars'));
    // After them, an update renders the open blocks and the one just finished at most.
    expect(max(long.work.slice(long.work.length / 2), 'rendered')).toBeLessThanOrEqual(3);
    // And a view names the blocks that may have changed: the two open ones
    // and those the piece finished (a 24-character piece finishes three at most).
    for (const w of long.work.slice(long.work.length / 2)) expect(w.blocks - w.from).toBeLessThanOrEqual(5);
  });

  it('keeps the finished blocks of a view as the very strings of the one before', () => {
    const text = longAnswer(60);
    const s = new MarkdownStream({ now: () => 0 });
    let shown = '';
    let before: string[] = [];
    for (const piece of pieces(text, 24)) {
      shown += piece;
      const view = s.update(shown, true);
      for (let i = 0; i < view.from; i++) expect(view.blocks[i]).toBe(before[i]);
      before = view.blocks;
    }
  });

  it('renders the finished blocks that refer to a definition again when it arrives, and only those', () => {
    const s = new MarkdownStream({ now: () => 0 });
    const head = 'See [the docs][docs].\n\nNo link here.\n\nNor here.\n\nAnother paragraph.\n\n';
    const first = s.update(head, true);
    expect(first.blocks[0]).not.toContain('href');
    const view = s.update(head + '[docs]: https://example.com/docs\n\nMore text.\n\nAnd more.\n', true);
    expect(view.from).toBe(0);
    expect(view.blocks[0]).toContain('href="https://example.com/docs"');
    expect(view.blocks[1]).toBe(first.blocks[1]);
    expect(s.work.rendered).toBeLessThanOrEqual(4);
  });
});
