import { describe, expect, it } from 'vitest';
import { changeRatio, tokenize, wordDiff, type DiffOp } from './diff';

const side = (ops: DiffOp[], keep: 'del' | 'add') =>
  ops
    .filter((o) => o.type === 'same' || o.type === keep)
    .map((o) => o.text)
    .join('');

describe('wordDiff', () => {
  it('finds nothing to change in equal texts', () => {
    expect(wordDiff('a b c', 'a b c')).toEqual([{ type: 'same', text: 'a b c' }]);
  });

  it('marks a replaced word', () => {
    expect(wordDiff('the quick fox', 'the slow fox')).toEqual([
      { type: 'same', text: 'the ' },
      { type: 'del', text: 'quick' },
      { type: 'add', text: 'slow' },
      { type: 'same', text: ' fox' },
    ]);
  });

  it('marks insertions and deletions', () => {
    expect(wordDiff('a c', 'a b c')).toEqual([
      { type: 'same', text: 'a ' },
      { type: 'add', text: 'b ' },
      { type: 'same', text: 'c' },
    ]);
    expect(wordDiff('a b c', 'a c')).toEqual([
      { type: 'same', text: 'a ' },
      { type: 'del', text: 'b ' },
      { type: 'same', text: 'c' },
    ]);
  });

  it('handles empty sides', () => {
    expect(wordDiff('', 'new text')).toEqual([{ type: 'add', text: 'new text' }]);
    expect(wordDiff('old', '')).toEqual([{ type: 'del', text: 'old' }]);
    expect(wordDiff('', '')).toEqual([]);
  });

  it('rebuilds both texts from its operations', () => {
    const a = 'Revenue grew 12% in the north, and 4% in the south.\nSee the chart.';
    const b = 'Revenue grew 14% in the north, 4% in the south and 7% in the east.\nSee the chart below.';
    const ops = wordDiff(a, b);
    expect(side(ops, 'del')).toBe(a);
    expect(side(ops, 'add')).toBe(b);
  });

  it('treats punctuation as its own token', () => {
    expect(tokenize('Hi, there!')).toEqual(['Hi', ',', ' ', 'there', '!']);
  });

  // The work is bounded by the size of the table, not by a clock: past
  // 4,000,000 cells the middle is shown as replaced whole (speed: make bench).
  it('diffs long texts word by word while the table stays under its bound', () => {
    const a = Array.from({ length: 900 }, (_, i) => `w${i}`).join(' ');
    const b = Array.from({ length: 900 }, (_, i) => (i % 10 === 5 ? `v${i}` : `w${i}`)).join(' ');
    const ops = wordDiff(a, b);
    expect(side(ops, 'del')).toBe(a);
    expect(side(ops, 'add')).toBe(b);
    expect(ops.filter((o) => o.type === 'add').map((o) => o.text)).toEqual(Array.from({ length: 90 }, (_, k) => `v${k * 10 + 5}`));
  });

  it('marks the whole middle replaced when the table would pass its bound', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `w${i}`).join(' ');
    const b = Array.from({ length: 3000 }, (_, i) => `v${i}`).join(' ');
    expect(wordDiff(a, b)).toEqual([
      { type: 'del', text: a },
      { type: 'add', text: b },
    ]);
  });

  it('measures how much changed', () => {
    expect(changeRatio(wordDiff('same', 'same'))).toBe(0);
    expect(changeRatio(wordDiff('a', 'b'))).toBe(1);
  });
});
