// What the Usage page shows: tokens and cost over a span of days, grouped
// one way, read from the backend as the span or the grouping changes (each
// change is a person's: a preset, a date, a grouping). Answers to an older
// request are dropped.
import { messageOf, type Backend } from '../api';
import { lastDays } from '../dates';
import type { UsageRequest, UsageView } from '../types';

export class UsageData {
  #backend: Pick<Backend, 'usage'>;
  #asked = 0;
  #since = $state(lastDays(30).since);
  #until = $state(lastDays(30).until);
  #by = $state('model');
  view = $state.raw<UsageView | null>(null);
  error = $state('');
  loading = $state(false);

  constructor(backend: Pick<Backend, 'usage'>) {
    this.#backend = backend;
  }

  get since() {
    return this.#since;
  }
  set since(v: string) {
    this.#since = v;
    void this.load();
  }

  get until() {
    return this.#until;
  }
  set until(v: string) {
    this.#until = v;
    void this.load();
  }

  get by() {
    return this.#by;
  }
  set by(v: string) {
    this.#by = v;
    void this.load();
  }

  /** The last n days, today included. */
  pick(n: number) {
    ({ since: this.#since, until: this.#until } = lastDays(n));
    void this.load();
  }

  get request(): UsageRequest {
    return { since: this.#since || undefined, until: this.#until || undefined, by: this.#by };
  }

  async load() {
    const ask = ++this.#asked;
    this.loading = true;
    this.error = '';
    try {
      const v = await this.#backend.usage(this.request);
      if (ask === this.#asked) this.view = v;
    } catch (err) {
      if (ask === this.#asked) this.error = messageOf(err);
    } finally {
      if (ask === this.#asked) this.loading = false;
    }
  }
}
