// What the Evaluations page shows, read from the backend: the runs, the
// report of the run shown, and the suite files the Run panel offers. The
// page reads it when it opens and on Refresh; the place (a run picked,
// Back) reads the report of the run it names; a run's progress, pushed by
// the backend (wiring.ts), reads the list again, and the report when it is
// the run shown. Answers to an older request are dropped.
import { messageOf, type Backend } from '../api';
import type { EvalRunSummary, EvalSuiteInfo, RunReport } from '../types';
import type { EvalsPlace } from './navigation.svelte';

export type EvalsBackend = Pick<Backend, 'evalRuns' | 'evalReport' | 'evalSuites'>;

export class EvalsData {
  #backend: EvalsBackend;
  #place: () => EvalsPlace;
  /** The page is shown: progress and places are news only then. */
  #open = false;
  #runsAsked = 0;
  #reportAsked = 0;
  #suitesAsked = 0;
  /** The report asked for last: run id and whether a comparison is shown. */
  #reportKey = '';

  runs = $state.raw<EvalRunSummary[]>([]);
  loaded = $state(false);
  listError = $state('');
  report = $state.raw<RunReport | null>(null);
  reportError = $state('');
  /** The suite files in the data folder's evals/; null until read. */
  suites = $state.raw<EvalSuiteInfo[] | null>(null);
  suitesError = $state('');
  /** The suite file the Run panel has picked: the first usable one unless the person picked another. */
  suiteFile = $state('');

  constructor(backend: EvalsBackend, place: () => EvalsPlace) {
    this.#backend = backend;
    this.#place = place;
  }

  /** The run shown: the place's, else the newest. */
  get selected(): string {
    return this.#place().runId || this.runs[0]?.run.id || '';
  }

  /** The page opened: everything is read. */
  open() {
    this.#open = true;
    void this.refresh();
  }

  /** The page closed. */
  close() {
    this.#open = false;
  }

  /** Reads the runs and the shown run's report again. */
  async refresh() {
    await Promise.all([this.loadRuns(), this.#loadReport(true)]);
  }

  /** The place changed (a run picked, Back, Forward): the report of the run it names. */
  placeChanged() {
    if (this.#open) void this.#loadReport(false);
  }

  /** A run moved on (a case ended): the list, and the report if it is the run shown. */
  progressed(runId: string) {
    if (!this.#open) return;
    const shown = this.selected;
    void this.loadRuns();
    if (runId === shown) void this.#loadReport(true);
  }

  async loadRuns() {
    const ask = ++this.#runsAsked;
    this.listError = '';
    try {
      const r = await this.#backend.evalRuns();
      if (ask !== this.#runsAsked) return;
      this.runs = r;
      this.loaded = true;
      // The newest run may be the one shown now.
      void this.#loadReport(false);
    } catch (err) {
      if (ask !== this.#runsAsked) return;
      this.listError = messageOf(err);
      this.loaded = true;
    }
  }

  /** Reads the suite files again (the Run panel opened, Refresh, a run started). */
  async loadSuites() {
    const ask = ++this.#suitesAsked;
    this.suitesError = '';
    try {
      const s = await this.#backend.evalSuites();
      if (ask !== this.#suitesAsked) return;
      this.suites = s;
      const usable = s.filter((x) => !x.problems?.length);
      if (!usable.some((x) => x.file === this.suiteFile)) this.suiteFile = usable[0]?.file ?? '';
    } catch (err) {
      if (ask !== this.#suitesAsked) return;
      this.suitesError = messageOf(err);
      this.suites = [];
    }
  }

  // The shown run's report, unless two runs are compared (EvalDiff reads
  // that); again only when the run shown changed, unless again is set.
  // Another run's report goes at once; the same run's stays while it is
  // read again.
  async #loadReport(again: boolean) {
    const id = this.selected;
    const comparing = !!this.#place().otherId;
    const key = `${id}|${comparing}`;
    if (!again && key === this.#reportKey) return;
    this.#reportKey = key;
    const ask = ++this.#reportAsked;
    if (!id || comparing) return;
    this.reportError = '';
    if (this.report?.run.id !== id) this.report = null;
    try {
      const r = await this.#backend.evalReport(id);
      if (ask === this.#reportAsked) this.report = r;
    } catch (err) {
      if (ask === this.#reportAsked) this.reportError = messageOf(err);
    }
  }
}
