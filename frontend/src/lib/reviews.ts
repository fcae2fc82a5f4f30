// Human review in the window, the logic without the DOM: a review's edits
// (a thumb toggles, a score toggles, labels as the backend keeps them), the
// short line a set review shows ("👎 2/5 · wrong tool"), the review filter
// the sidebar and the queue share (a rating, a label, a time: "rated down in
// the last week") and the keys of the review queue.
import type { Review, ReviewFilter, SessionReviews } from './types';

/** The key of a review in a map: the turn and the step ('' for the turn itself). */
export const reviewKey = (turnId: string, step = '') => `${turnId}/${step}`;

/** Go's zero time as JSON: what an unsaved review's times are (an empty string does not decode). */
export const zeroTime = '0001-01-01T00:00:00Z';

/** A review that says nothing yet. */
export function blankReview(turnId: string, step = ''): Review {
  return { id: '', turn_id: turnId, step, thumb: 0, score: 0, labels: [], note: '', created_at: zeroTime, updated_at: zeroTime };
}

/** Whether a review says nothing (saving it removes it). */
export const isEmpty = (r: Review | undefined) => !r || (!r.thumb && !r.score && !(r.labels ?? []).length && !r.note.trim());

/** The review with the thumb pressed: pressing the one that is set takes it off. */
export const withThumb = (r: Review, thumb: 1 | -1): Review => ({ ...r, thumb: r.thumb === thumb ? 0 : thumb });

/** The review with a score of 1 to 5: pressing the score that is set takes it off. */
export const withScore = (r: Review, score: number): Review => ({ ...r, score: r.score === score ? 0 : score });

/** A label as the backend keeps it: lower-case, trimmed, inner spaces folded; '' for none. */
export const normalLabel = (l: string) => l.toLowerCase().split(/\s+/).filter(Boolean).join(' ');

/** Labels with one more (normalized, each once, sorted as the backend sorts them). */
export function addLabel(labels: readonly string[] | null, label: string): string[] {
  const l = normalLabel(label.replace(/,/g, ' '));
  const out = [...(labels ?? [])];
  if (l && !out.includes(l)) out.push(l);
  return out.sort();
}

/** Labels without one. */
export const removeLabel = (labels: readonly string[] | null, label: string) => (labels ?? []).filter((l) => l !== label);

/**
 * The short line of a set review: "👎 2/5 · wrong tool · note"; '' for an
 * empty one. Without the thumb (beside thumb buttons that show it): "2/5 ·
 * wrong tool · note".
 */
export function summarize(r: Review | undefined, opts: { thumb?: boolean } = {}): string {
  if (!r || isEmpty(r)) return '';
  const thumb = opts.thumb === false ? '' : r.thumb === 1 ? '👍' : r.thumb === -1 ? '👎' : '';
  const head = [thumb, r.score ? `${r.score}/5` : ''].filter(Boolean).join(' ');
  const parts = [head, ...(r.labels ?? [])];
  if (r.note.trim()) parts.push('note');
  return parts.filter(Boolean).join(' · ');
}

/** The same in words, for a screen reader: "Rated down, 2 of 5, labels: wrong tool, with a note". */
export function describe(r: Review | undefined): string {
  if (!r || isEmpty(r)) return 'Not reviewed';
  const parts: string[] = [];
  if (r.thumb) parts.push(r.thumb === 1 ? 'Rated up' : 'Rated down');
  if (r.score) parts.push(`${r.score} of 5`);
  if ((r.labels ?? []).length) parts.push(`labels: ${(r.labels ?? []).join(', ')}`);
  if (r.note.trim()) parts.push('with a note');
  const s = parts.join(', ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The worst thumb of a turn's reviews (its own and its steps'): -1 if any is down, 1 if any up, else 0. */
export function turnThumb(reviews: readonly Review[]): number {
  if (reviews.some((r) => r.thumb === -1)) return -1;
  return reviews.some((r) => r.thumb === 1) ? 1 : 0;
}

// The review filter of the sidebar and the queue.

export type Rated = '' | 'reviewed' | 'unreviewed' | 'up' | 'down';
export type Since = '' | 'day' | 'week' | 'month';

/** A review filter as a person sets it: a rating, a label and how recent the turns are. */
export interface ReviewDraft {
  rated: Rated;
  label: string;
  since: Since;
}

export const noReviewDraft: ReviewDraft = { rated: '', label: '', since: '' };

export const ratedOptions: { value: Rated; label: string }[] = [
  { value: '', label: 'Any rating' },
  { value: 'down', label: 'Rated down' },
  { value: 'up', label: 'Rated up' },
  { value: 'reviewed', label: 'Reviewed' },
  { value: 'unreviewed', label: 'Not reviewed' },
];

export const sinceOptions: { value: Since; label: string; days: number }[] = [
  { value: '', label: 'Any time', days: 0 },
  { value: 'day', label: 'In the last day', days: 1 },
  { value: 'week', label: 'In the last week', days: 7 },
  { value: 'month', label: 'In the last 30 days', days: 30 },
];

/** Whether the draft filters anything. */
export const draftActive = (d: ReviewDraft) => !!d.rated || !!normalLabel(d.label) || !!d.since;

/** The start of the time a draft keeps to, or undefined for any time. */
export function sinceDate(since: Since, now: Date): string | undefined {
  const days = sinceOptions.find((o) => o.value === since)?.days ?? 0;
  return days ? new Date(now.getTime() - days * 86_400_000).toISOString() : undefined;
}

/** The queue's filter (store.ReviewFilter) of a draft. */
export function toReviewFilter(d: ReviewDraft, now: Date, extra: Partial<ReviewFilter> = {}): ReviewFilter {
  const label = normalLabel(d.label);
  const since = sinceDate(d.since, now);
  return { ...extra, ...(d.rated ? { rated: d.rated } : {}), ...(label ? { label } : {}), ...(since ? { since } : {}) };
}

/** The session list's filter (store.Page.Reviews) of a draft; undefined when it keeps every session. */
export function toSessionReviews(d: ReviewDraft, now: Date): SessionReviews | undefined {
  if (!draftActive(d)) return undefined;
  const f = toReviewFilter(d, now);
  return { ...(f.rated ? { rated: f.rated } : {}), ...(f.label ? { label: f.label } : {}), ...(f.since ? { since: f.since } : {}) };
}

/** The draft in words: "Rated down · “wrong tool” · in the last week"; '' for none. */
export function describeDraft(d: ReviewDraft): string {
  const parts: string[] = [];
  if (d.rated) parts.push(ratedOptions.find((o) => o.value === d.rated)!.label);
  const label = normalLabel(d.label);
  if (label) parts.push(`“${label}”`);
  if (d.since) parts.push(sinceOptions.find((o) => o.value === d.since)!.label.toLowerCase());
  return parts.join(' · ');
}

// The review queue's keys.

export type QueueAction =
  | { kind: 'next' }
  | { kind: 'prev' }
  | { kind: 'score'; score: number }
  | { kind: 'thumb'; thumb: 1 | -1 }
  | { kind: 'labels' }
  | { kind: 'note' }
  | { kind: 'open' }
  | { kind: 'leave' };

/**
 * What a key does in the queue: j/k or →/← move, 1–5 score, + and −
 * thumbs, l and n go to the labels and the note, o opens the turn, Esc
 * leaves. Nothing while typing in a field (Esc there leaves the field to the
 * caller), with Ctrl, Alt or Meta held.
 */
export function queueAction(e: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'altKey' | 'metaKey'>, typing: boolean): QueueAction | null {
  if (e.ctrlKey || e.altKey || e.metaKey) return null;
  if (typing) return null;
  switch (e.key) {
    case 'j':
    case 'ArrowRight':
      return { kind: 'next' };
    case 'k':
    case 'ArrowLeft':
      return { kind: 'prev' };
    case '+':
    case '=':
      return { kind: 'thumb', thumb: 1 };
    case '-':
      return { kind: 'thumb', thumb: -1 };
    case 'l':
      return { kind: 'labels' };
    case 'n':
      return { kind: 'note' };
    case 'o':
      return { kind: 'open' };
    case 'Escape':
      return { kind: 'leave' };
  }
  if (/^[1-5]$/.test(e.key)) return { kind: 'score', score: Number(e.key) };
  return null;
}

/** Where the queue stands: "3 of 17". */
export function progress(index: number, total: number): string {
  return total ? `${Math.min(index, total - 1) + 1} of ${total}` : '0 of 0';
}

/** The index after a move, kept inside the list. */
export function moveIndex(index: number, by: number, total: number): number {
  if (!total) return 0;
  return Math.max(0, Math.min(total - 1, index + by));
}
