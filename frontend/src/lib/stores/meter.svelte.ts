// The context meter's reading of the draft: asked of the backend as the
// person types, a quarter second after the last keystroke (the Go side
// counts the conversation once and only the draft again, but a call per
// key is still a call per key). Only the newest answer is kept: one that
// comes back after a later question was asked is dropped.
//
// A component does not ask the meter from an $effect of its own: it hands
// MeterFeed.follow what the meter reads (the draft, its images, the
// session, its model and settings, the turn), which the class derives;
// the class's one effect only arms and clears its timer, and the timer's
// callback is what asks the backend.
import { untrack } from 'svelte';
import type { Meter, MeterRequest } from '../types';

/** The pause after the last change before the meter is asked again. */
export const MeterDelay = 250;

/** What the meter follows: the question (null: nothing to count), whether a turn runs, and a key of what settles the conversation. */
export interface MeterInputs {
  req: MeterRequest | null;
  running: boolean;
  /** Changes when the session, its model, its provider's settings or its newest turn does: the meter is then asked at once. */
  settled: string;
}

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
    const go = this.#prepare(req, now);
    if (!go) return;
    if (now || !this.meter) go();
    else this.#timer = setTimeout(go, this.#delay);
  }

  /**
   * Follows read (called in a derivation, so it may read runes): asks as
   * request does whenever what it returns changes, except while a turn
   * runs (the conversation is not whole until it ends; the last reading
   * stays), and at once when settled changed. Call it while a component
   * (or an effect root) is being set up: its one effect only arms the
   * timer that asks (after no delay when at once), and the component's
   * end clears it.
   */
  follow(read: () => MeterInputs) {
    const inputs = $derived.by(read);
    // A string, so the effect runs again only when a value changed.
    const key = $derived(JSON.stringify(inputs));
    let lastSettled = '';
    $effect(() => {
      void key;
      untrack(() => {
        const { req, running, settled } = inputs;
        if (running && req) return;
        // A turn that ended is the newest turn now: settled changed with it.
        const now = settled !== lastSettled;
        lastSettled = settled;
        const go = this.#prepare(req, now);
        if (go) this.#timer = setTimeout(go, now || !this.meter ? 0 : this.#delay);
      });
    });
    $effect(() => () => this.dispose());
  }

  /** Drops a question not asked yet and returns the one to ask for req, or null when there is none (cleared, or the same as the last). */
  #prepare(req: MeterRequest | null, now: boolean): (() => void) | null {
    clearTimeout(this.#timer);
    if (!req) {
      this.#asked++;
      this.#last = '';
      this.meter = null;
      return null;
    }
    const key = JSON.stringify(req);
    if (key === this.#last && !now) return null;
    this.#last = key;
    const n = ++this.#asked;
    return () => {
      this.#ask(req).then(
        (m) => n === this.#asked && (this.meter = m),
        () => n === this.#asked && (this.meter = null),
      );
    };
  }

  /** Stops a question not asked yet and drops answers still coming. */
  dispose() {
    clearTimeout(this.#timer);
    this.#asked++;
  }
}
