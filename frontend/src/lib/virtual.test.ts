import { describe, expect, it } from 'vitest';
import { estimateTurnHeight, followsAfterScroll, indexAt, offsetsOf, visibleRange } from './virtual';

describe('virtual list math', () => {
  const keys = Array.from({ length: 5000 }, (_, i) => `t${i}`);
  const measured = new Map([
    ['t0', 300],
    ['t1', 50],
  ]);
  const offsets = offsetsOf(keys, measured, () => 100);

  it('uses measured heights where known and the estimate elsewhere', () => {
    expect(offsets[0]).toBe(0);
    expect(offsets[1]).toBe(300);
    expect(offsets[2]).toBe(350);
    expect(offsets[3]).toBe(450);
    expect(offsets[5000]).toBe(350 + 4998 * 100);
  });

  it('finds the item at a position', () => {
    expect(indexAt(offsets, 0)).toBe(0);
    expect(indexAt(offsets, 299)).toBe(0);
    expect(indexAt(offsets, 300)).toBe(1);
    expect(indexAt(offsets, 10_000_000)).toBe(4999);
  });

  it('renders only the items near the viewport of 5,000', () => {
    const r = visibleRange(offsets, 200_000, 800, 300);
    expect(r.end - r.start).toBeLessThan(20);
    expect(r.padTop).toBe(offsets[r.start]);
    expect(r.padTop + (offsets[r.end]! - offsets[r.start]!) + r.padBottom).toBe(offsets[5000]);
    expect(offsets[r.start]!).toBeLessThanOrEqual(200_000 - 300);
    expect(offsets[r.end]!).toBeGreaterThanOrEqual(200_800 + 300);
  });

  it('reaches the last item at the bottom', () => {
    const total = offsets[5000]!;
    const r = visibleRange(offsets, total - 800, 800, 0);
    expect(r.end).toBe(5000);
    expect(r.padBottom).toBe(0);
  });

  it('handles an empty list', () => {
    expect(
      visibleRange(
        offsetsOf([], new Map(), () => 1),
        0,
        500,
      ),
    ).toEqual({ start: 0, end: 0, padTop: 0, padBottom: 0 });
  });

  it('estimates taller turns for longer text', () => {
    expect(estimateTurnHeight('hi', 'x'.repeat(2000))).toBeGreaterThan(estimateTurnHeight('hi', 'short'));
  });

  it('computes offsets in one pass: the estimate is asked once for each item not measured', () => {
    const asked: number[] = [];
    offsetsOf(keys, measured, (i) => (asked.push(i), 100));
    expect(asked).toHaveLength(keys.length - measured.size);
    expect(asked[0]).toBe(2);
    expect(asked[asked.length - 1]).toBe(4999);
  });
});

describe('following the bottom after a scroll event', () => {
  // A list 5,000 px tall in a 600 px view: the bottom is at scrollTop 4,400.
  const at = (scrollTop: number, following: boolean, ownTop: number | null) =>
    followsAfterScroll({ following, scrollTop, scrollHeight: 5000, clientHeight: 600, ownTop });
  it.each([
    { name: 'at the bottom follows', scrollTop: 4400, following: false, ownTop: null, want: true },
    { name: 'within the slack follows', scrollTop: 4360, following: false, ownTop: null, want: true },
    { name: 'the person scrolled up: stops', scrollTop: 3000, following: true, ownTop: null, want: false },
    {
      // The list went to the bottom at 4,300; a stream grew the content by
      // 100 px before the event came: still following.
      name: 'its own scroll, content grown since: keeps following',
      scrollTop: 4300,
      following: true,
      ownTop: 4300,
      want: true,
    },
    { name: 'its own scroll while not following (a focus): stays put', scrollTop: 2000, following: false, ownTop: 2000, want: false },
    { name: 'the person scrolled after its own scroll: stops', scrollTop: 3900, following: true, ownTop: 4300, want: false },
  ])('$name', ({ scrollTop, following, ownTop, want }) => {
    expect(at(scrollTop, following, ownTop)).toBe(want);
  });
});
