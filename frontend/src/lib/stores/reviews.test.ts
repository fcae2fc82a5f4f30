import { describe, expect, it, vi } from 'vitest';
import { BackendError } from '../api';
import { blankReview } from '../reviews';
import type { Review, ReviewFilter, ReviewedTurn } from '../types';
import { ReviewQueue, ReviewStore } from './reviews.svelte';

function backend() {
  const saved: Review[] = [];
  return {
    saved,
    saveReview: vi.fn(async (r: Review) => {
      if (r.score > 5) throw new BackendError('invalid', 'Score must be 1 to 5.');
      const out = { ...r, id: r.thumb || r.score || r.labels?.length || r.note ? 'rv1' : '' };
      saved.push(out);
      return out;
    }),
    reviewsFor: vi.fn(async (ids: string[]) =>
      ids.filter((id) => id === 't2').map((id) => ({ ...blankReview(id, 'tool1'), id: 'r', thumb: -1 })),
    ),
    listReviewed: vi.fn(async (f: ReviewFilter): Promise<ReviewedTurn[]> => {
      void f;
      return ['a', 'b', 'c'].map((id, i) => ({
        turn_id: id,
        session_id: 's',
        session_title: 'S',
        project_id: '',
        seq: i + 1,
        state: 'done',
        model: 'm',
        workflow: 'chat',
        started_at: '2026-12-07T00:00:00Z',
        user_message: 'q',
        answer: 'a',
        reviews: id === 'b' ? [{ ...blankReview('b'), id: 'x', thumb: 1 }] : [],
      }));
    }),
    reviewLabels: vi.fn(async () => [{ label: 'wrong tool', count: 2 }]),
  };
}

const now = () => new Date('2026-12-07T12:00:00Z');

describe('ReviewStore', () => {
  it('reads the reviews of a page of turns in one call, and each turn once', async () => {
    const b = backend();
    const s = new ReviewStore({ backend: b, toast: () => {}, now });
    await s.loadFor(['t1', 't2', 't3']);
    await s.loadFor(['t1', 't2', 't3', 't4']);
    expect(b.reviewsFor.mock.calls).toEqual([[['t1', 't2', 't3']], [['t4']]]);
    expect(s.get('t2', 'tool1').thumb).toBe(-1);
    expect(s.get('t1').thumb).toBe(0);
    expect(s.ofTurn('t2')).toHaveLength(1);
  });

  it('shows a save at once, drops an emptied review, and puts back a refused one with the reason', async () => {
    const b = backend();
    const toast = vi.fn();
    const s = new ReviewStore({ backend: b, toast, now });
    const pending = s.save({ ...blankReview('t1'), thumb: -1, score: 2 });
    expect(s.get('t1').thumb).toBe(-1);
    expect(await pending).toBe(true);
    // Go decodes no empty time: an unsaved review goes with the zero time.
    expect(b.saveReview.mock.calls[0]![0].created_at).toBe('0001-01-01T00:00:00Z');
    expect(s.get('t1').id).toBe('rv1');
    expect(await s.save({ ...s.get('t1'), score: 9 })).toBe(false);
    expect(s.get('t1').score).toBe(2);
    expect(toast).toHaveBeenCalledWith('The review was not saved: Score must be 1 to 5.');
    await s.save(blankReview('t1'));
    expect(s.has('t1')).toBe(false);
  });
});

describe('ReviewQueue', () => {
  it('lists the turns of its filter, keeps their reviews, and walks them inside the list', async () => {
    const b = backend();
    const store = new ReviewStore({ backend: b, toast: () => {}, now });
    const q = new ReviewQueue({ backend: b, toast: () => {}, now }, store);
    q.draft = { rated: 'down', label: '', since: 'day' };
    await q.load();
    expect(b.listReviewed).toHaveBeenCalledWith({ limit: 500, rated: 'down', since: '2026-12-06T12:00:00.000Z' });
    expect(q.items.map((t) => t.turn_id)).toEqual(['a', 'b', 'c']);
    expect(store.get('b').thumb).toBe(1);
    q.move(-1);
    expect(q.index).toBe(0);
    q.move(1);
    q.move(1);
    q.move(1);
    expect(q.current?.turn_id).toBe('c');
    // Already read with the list: the conversation asks for none of them again.
    await store.loadFor(['a', 'b']);
    expect(b.reviewsFor).not.toHaveBeenCalled();
  });
});
