import { describe, expect, it } from 'vitest';
import { estimateTurnHeight, indexAt, offsetsOf, visibleRange } from './virtual';

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
