// The context meter's reading of the draft: asked of the backend as the
// person types, a quarter second after the last keystroke (the Go side
// counts the conversation once and only the draft again, but a call per
// key is still a call per key). Only the newest answer is kept: one that
// comes back after a later question was asked is dropped.
import type { Meter, MeterRequest } from '../types';

/** The pause after the last change before the meter is asked again. */
export const MeterDelay = 250;

export class MeterFeed {
  /** The last reading; null while there is none (no saved session yet, or the backend could not count). */
  meter = $state.raw<Meter | null>(null);

  readonly #ask: (req: MeterRequest) => Promise<Meter>;
  readonly #delay: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #asked = 0;
  #last = '';

  constructor(ask: (req: MeterRequest) => Promise<Meter>, delay = MeterDelay) {
    this.#ask = ask;
    this.#delay = delay;
  }

  /**
   * Asks about req after the delay, replacing a question not asked yet;
   * at once when nothing is shown yet or now (a turn ended: the
   * conversation changed). Null clears the reading: nothing to count.
   * The same request as the last is not asked again unless now.
   */
  request(req: MeterRequest | null, now = false) {
    clearTimeout(this.#timer);
    if (!req) {
      this.#asked++;
      this.#last = '';
      this.meter = null;
      return;
    }
    const key = JSON.stringify(req);
    if (key === this.#last && !now) return;
    this.#last = key;
    const n = ++this.#asked;
    const go = () => {
      this.#ask(req).then(
        (m) => n === this.#asked && (this.meter = m),
        () => n === this.#asked && (this.meter = null),
      );
    };
    if (now || !this.meter) go();
    else this.#timer = setTimeout(go, this.#delay);
  }

  /** Stops a question not asked yet and drops answers still coming. */
  dispose() {
    clearTimeout(this.#timer);
    this.#asked++;
  }
}
