// Human reviews in the window: the reviews of the turns shown and of their
// steps, read a page at a time (one reviewsFor for every turn not read yet,
// never one per turn), saved as they change, and the review queue: the
// turns a filter picks (listReviewed), walked one by one.
//
// A save shows at once; a refusal puts back what was there and says why
// (the backend's words, in the toast).
import { messageOf, type Backend } from '../api';
import { blankReview, moveIndex, zeroTime, noReviewDraft, reviewKey, toReviewFilter, type ReviewDraft } from '../reviews';
import type { LabelCount, Review, ReviewFilter, ReviewedTurn } from '../types';

export interface ReviewsDeps {
  backend: Pick<Backend, 'saveReview' | 'reviewsFor' | 'listReviewed' | 'reviewLabels'>;
  toast: (m: string) => void;
  now: () => Date;
}

export class ReviewStore {
  /** Reviews by reviewKey(turn, step). */
  byKey = $state.raw<Record<string, Review>>({});
  #d: ReviewsDeps;
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- what was asked, not state
  #asked = new Set<string>();

  constructor(deps: ReviewsDeps) {
    this.#d = deps;
  }

  /** The review of a turn (step '') or of one of its steps; a blank one when there is none. */
  get(turnId: string, step = ''): Review {
    return this.byKey[reviewKey(turnId, step)] ?? blankReview(turnId, step);
  }

  /** Whether a review was read or made for this turn and step. */
  has(turnId: string, step = ''): boolean {
    return reviewKey(turnId, step) in this.byKey;
  }

  /** Every review of a turn: its own and its steps'. */
  ofTurn(turnId: string): Review[] {
    const p = `${turnId}/`;
    return Object.entries(this.byKey)
      .filter(([k]) => k.startsWith(p))
      .map(([, r]) => r);
  }

  /** Reads the reviews of the turns not read yet, in one call. */
  async loadFor(turnIds: readonly string[]): Promise<void> {
    const ids = turnIds.filter((id) => !this.#asked.has(id));
    if (!ids.length) return;
    for (const id of ids) this.#asked.add(id);
    try {
      this.#put((await this.#d.backend.reviewsFor(ids)) ?? []);
    } catch (err) {
      for (const id of ids) this.#asked.delete(id);
      this.#d.toast(`Could not read the reviews: ${messageOf(err)}`);
    }
  }

  /** Keeps reviews another read brought (the queue's list). */
  adopt(reviews: readonly Review[], turnIds: readonly string[]) {
    const next = { ...this.byKey };
    for (const id of turnIds) {
      this.#asked.add(id);
      for (const k of Object.keys(next)) if (k.startsWith(`${id}/`)) delete next[k];
    }
    for (const r of reviews) next[reviewKey(r.turn_id, r.step)] = r;
    this.byKey = next;
  }

  #put(reviews: readonly Review[]) {
    const next = { ...this.byKey };
    for (const r of reviews) next[reviewKey(r.turn_id, r.step)] = r;
    this.byKey = next;
  }

  #set(key: string, r: Review | undefined) {
    const next = { ...this.byKey };
    if (r) next[key] = r;
    else delete next[key];
    this.byKey = next;
  }

  /** Saves a review (shown at once); false when the backend refused it, and the old one is back. */
  async save(r: Review): Promise<boolean> {
    const key = reviewKey(r.turn_id, r.step);
    const before = this.byKey[key];
    this.#set(key, r);
    try {
      const saved = await this.#d.backend.saveReview({ ...r, created_at: r.created_at || zeroTime, updated_at: r.updated_at || zeroTime });
      // An empty review is removed: none is kept.
      this.#set(key, saved.id ? saved : undefined);
      return true;
    } catch (err) {
      this.#set(key, before);
      this.#d.toast(`The review was not saved: ${messageOf(err)}`);
      return false;
    }
  }

  /** Labels in use that start with prefix, most used first; none when they cannot be read. */
  async labels(prefix: string): Promise<LabelCount[]> {
    try {
      return (await this.#d.backend.reviewLabels(prefix)) ?? [];
    } catch {
      return [];
    }
  }
}

/** The review queue: the turns a filter picks, one shown at a time. */
export class ReviewQueue {
  draft = $state<ReviewDraft>({ ...noReviewDraft, rated: 'unreviewed' });
  items = $state.raw<ReviewedTurn[]>([]);
  index = $state(0);
  loading = $state(false);
  error = $state('');
  /** The filter the list was read with (what "Make a suite from these" takes). */
  filter = $state.raw<ReviewFilter>({});
  #d: ReviewsDeps;
  #store: ReviewStore;
  #n = 0;

  constructor(deps: ReviewsDeps, store: ReviewStore) {
    this.#d = deps;
    this.#store = store;
  }

  get current(): ReviewedTurn | undefined {
    return this.items[this.index];
  }

  /** Reads the turns of the draft's filter, from the first. */
  async load(): Promise<void> {
    const n = ++this.#n;
    const filter = toReviewFilter(this.draft, this.#d.now(), { limit: 500 });
    this.loading = true;
    this.error = '';
    try {
      const items = (await this.#d.backend.listReviewed(filter)) ?? [];
      if (n !== this.#n) return;
      this.#store.adopt(
        items.flatMap((t) => t.reviews ?? []),
        items.map((t) => t.turn_id),
      );
      this.items = items;
      this.filter = filter;
      this.index = 0;
    } catch (err) {
      if (n === this.#n) this.error = `Could not list the turns: ${messageOf(err)}`;
    } finally {
      if (n === this.#n) this.loading = false;
    }
  }

  /** Moves by one (or more), staying inside the list. */
  move(by: number) {
    this.index = moveIndex(this.index, by, this.items.length);
  }
}
