import { describe, expect, it } from 'vitest';
import {
  addLabel,
  blankReview,
  describe as describeReview,
  describeDraft,
  isEmpty,
  moveIndex,
  progress,
  queueAction,
  removeLabel,
  summarize,
  toReviewFilter,
  toSessionReviews,
  turnThumb,
  withScore,
  withThumb,
} from './reviews';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; altKey: boolean; metaKey: boolean }> = {}) => ({
  key: k,
  ctrlKey: false,
  altKey: false,
  metaKey: false,
  ...mods,
});

describe('a review edited', () => {
  it('toggles a thumb and a score', () => {
    const r = blankReview('t1');
    expect(withThumb(r, -1).thumb).toBe(-1);
    expect(withThumb(withThumb(r, -1), -1).thumb).toBe(0);
    expect(withThumb(withThumb(r, -1), 1).thumb).toBe(1);
    expect(withScore(r, 2).score).toBe(2);
    expect(withScore(withScore(r, 2), 2).score).toBe(0);
  });

  it('keeps labels as the backend does: lower-case, folded, each once, sorted', () => {
    expect(addLabel(['slow'], '  Wrong   Tool ')).toEqual(['slow', 'wrong tool']);
    expect(addLabel(['slow'], 'SLOW')).toEqual(['slow']);
    expect(addLabel(null, 'a,b')).toEqual(['a b']);
    expect(addLabel([], '   ')).toEqual([]);
    expect(removeLabel(['a', 'b'], 'a')).toEqual(['b']);
  });

  it('reads short when set, and says nothing when empty', () => {
    const r = { ...blankReview('t1'), thumb: -1, score: 2, labels: ['wrong tool'] };
    expect(summarize(r)).toBe('👎 2/5 · wrong tool');
    expect(summarize({ ...r, note: 'x' })).toBe('👎 2/5 · wrong tool · note');
    expect(summarize(blankReview('t1'))).toBe('');
    expect(summarize({ ...r, score: 0 }, { thumb: false })).toBe('wrong tool');
    expect(summarize({ ...r, labels: [] }, { thumb: false })).toBe('2/5');
    expect(isEmpty({ ...blankReview('t1'), note: '  ' })).toBe(true);
    expect(describeReview(r)).toBe('Rated down, 2 of 5, labels: wrong tool');
    expect(describeReview(undefined)).toBe('Not reviewed');
  });

  it('gives a turn the worst thumb of its steps', () => {
    const up = { ...blankReview('t'), thumb: 1 };
    const down = { ...blankReview('t', 'tool1'), thumb: -1 };
    expect(turnThumb([up, down])).toBe(-1);
    expect(turnThumb([up])).toBe(1);
    expect(turnThumb([])).toBe(0);
  });
});

describe('the review filter', () => {
  const now = new Date('2026-12-07T12:00:00Z');
  it('is the queue filter and the session list filter', () => {
    const d = { rated: 'down' as const, label: ' Wrong Tool', since: 'week' as const };
    expect(toReviewFilter(d, now, { limit: 5 })).toEqual({
      limit: 5,
      rated: 'down',
      label: 'wrong tool',
      since: '2026-11-30T12:00:00.000Z',
    });
    expect(toSessionReviews(d, now)).toEqual({ rated: 'down', label: 'wrong tool', since: '2026-11-30T12:00:00.000Z' });
    expect(toSessionReviews({ rated: '', label: ' ', since: '' }, now)).toBeUndefined();
    expect(describeDraft(d)).toBe('Rated down · “wrong tool” · in the last week');
    expect(describeDraft({ rated: '', label: '', since: '' })).toBe('');
  });
});

describe('the review queue', () => {
  it('maps keys to actions, none while typing or with a modifier', () => {
    expect(queueAction(key('j'), false)).toEqual({ kind: 'next' });
    expect(queueAction(key('ArrowRight'), false)).toEqual({ kind: 'next' });
    expect(queueAction(key('k'), false)).toEqual({ kind: 'prev' });
    expect(queueAction(key('ArrowLeft'), false)).toEqual({ kind: 'prev' });
    expect(queueAction(key('3'), false)).toEqual({ kind: 'score', score: 3 });
    expect(queueAction(key('6'), false)).toBeNull();
    expect(queueAction(key('+'), false)).toEqual({ kind: 'thumb', thumb: 1 });
    expect(queueAction(key('-'), false)).toEqual({ kind: 'thumb', thumb: -1 });
    expect(queueAction(key('l'), false)).toEqual({ kind: 'labels' });
    expect(queueAction(key('n'), false)).toEqual({ kind: 'note' });
    expect(queueAction(key('o'), false)).toEqual({ kind: 'open' });
    expect(queueAction(key('Escape'), false)).toEqual({ kind: 'leave' });
    expect(queueAction(key('j'), true)).toBeNull();
    expect(queueAction(key('j', { ctrlKey: true }), false)).toBeNull();
  });

  it('says where it stands and stays inside the list', () => {
    expect(progress(2, 17)).toBe('3 of 17');
    expect(progress(0, 0)).toBe('0 of 0');
    expect(moveIndex(0, -1, 3)).toBe(0);
    expect(moveIndex(2, 1, 3)).toBe(2);
    expect(moveIndex(1, 1, 3)).toBe(2);
    expect(moveIndex(5, 1, 0)).toBe(0);
  });
});
