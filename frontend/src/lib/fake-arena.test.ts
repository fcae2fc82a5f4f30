// The fake's board is fitted from the votes (never written down): a
// winner beats each other target of its group, ties and "bad" tie every
// pair, a target with no votes is listed last, unranked, and the same
// votes give the same board, intervals included.
import { describe, expect, it } from 'vitest';
import { Method, rate } from './fake-arena';
import { parseHash, formatRoute } from './route';

describe('rate', () => {
  it('ranks by strength, counts pairs, and lists a target with no votes last', () => {
    const board = rate(
      [
        { targets: ['a', 'b'], winner: 'a' },
        { targets: ['a', 'b'], winner: 'a' },
        { targets: ['b', 'c'], winner: 'b' },
        { targets: ['a', 'c'], winner: '' },
      ],
      ['d'],
    );
    expect(board).toMatchObject({ method: Method, votes: 4, comparisons: 4 });
    expect(board.ratings!.map((r) => [r.target, r.rank, r.votes, r.wins, r.losses, r.ties])).toEqual([
      ['a', 1, 3, 2, 0, 1],
      ['b', 2, 3, 1, 2, 0],
      ['c', 3, 2, 0, 1, 1],
      ['d', 0, 0, 0, 0, 0],
    ]);
    const [a, b, c, d] = board.ratings!;
    expect(a!.score).toBeGreaterThan(b!.score);
    expect(b!.score).toBeGreaterThan(c!.score);
    for (const r of [a!, b!, c!]) {
      expect(r.low).toBeLessThanOrEqual(r.score);
      expect(r.high).toBeGreaterThanOrEqual(r.score);
    }
    expect(d).toMatchObject({ score: 0, low: 0, high: 0 });
    expect(
      rate(
        [
          { targets: ['a', 'b'], winner: 'a' },
          { targets: ['a', 'b'], winner: 'a' },
          { targets: ['b', 'c'], winner: 'b' },
          { targets: ['a', 'c'], winner: '' },
        ],
        ['d'],
      ),
    ).toEqual(board);
  });

  it('gives equal scores for ties alone, and a win of four beats each of the other three', () => {
    const tied = rate([{ targets: ['x', 'y'], winner: '' }]);
    expect(tied.ratings![0]!.score).toBe(tied.ratings![1]!.score);
    expect(tied.ratings![0]!.ties).toBe(1);
    const four = rate([{ targets: ['a', 'b', 'c', 'd'], winner: 'c' }]);
    expect(four.comparisons).toBe(3);
    expect(four.ratings![0]).toMatchObject({ target: 'c', rank: 1, wins: 3, votes: 1 });
    expect(four.ratings!.slice(1).every((r) => r.losses === 1 && r.votes === 1)).toBe(true);
  });

  it('is empty with no votes', () => {
    expect(rate([])).toEqual({ method: Method, votes: 0, comparisons: 0, ratings: [] });
  });
});

describe('the Arena route', () => {
  it('reads and writes #/arena', () => {
    expect(parseHash('#/arena')).toEqual({ kind: 'arena' });
    expect(formatRoute({ kind: 'arena' })).toBe('#/arena');
  });
});
