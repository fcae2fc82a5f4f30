// The turn the diagnostics panel shows: pinned and loaded while shown, and
// its stored stage results read once it is over: as the panel opens on a
// finished turn, or as the turn ends while watched (the wiring tells).
import type { TurnStore } from './turns.svelte';

export class DiagnosticsData {
  #turns: TurnStore;
  #shown = '';
  #unpin: (() => void) | null = null;
  /** The stages are being read, or were: once per showing. */
  #asked = false;
  /** Why the stored stages could not be read; '' if they could. */
  error = $state('');

  constructor(turns: TurnStore) {
    this.#turns = turns;
  }

  /** The panel shows a turn: it is pinned and loaded, and its stages read if it is over. */
  show(id: string) {
    this.hide();
    this.#shown = id;
    this.#asked = false;
    this.error = '';
    this.#unpin = this.#turns.pin(id);
    void this.#turns.load(id);
    this.turnChanged(id);
  }

  /** The panel closed. */
  hide() {
    this.#unpin?.();
    this.#unpin = null;
    this.#shown = '';
  }

  /** A turn's state changed (its events, or a change with none): the shown one, once over, has its stored stages read. */
  turnChanged(id: string) {
    if (id !== this.#shown || this.#asked || this.#turns.status(id) === 'running' || this.#turns.stages(id)) return;
    this.#asked = true;
    void this.#turns.fetchStages(id).then((msg) => {
      if (id === this.#shown) this.error = msg;
    });
  }
}
