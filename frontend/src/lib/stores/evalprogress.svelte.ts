// Evaluation runs started from a window, as they go: the latest progress
// of each, by run id. The backend tells every UI as each case ends, so a
// second window (or the browser mode beside the app) sees the same run.
import type { EvalProgress } from '../types';

export class RunProgress {
  /** The latest progress of each run, by run id. */
  byRun = $state.raw<Record<string, EvalProgress>>({});

  /**
   * Keeps p as its run's latest progress; an older one (fewer cases done)
   * arriving late is dropped. Answers whether the run moved on: its
   * state or its count of cases done changed.
   */
  note(p: EvalProgress): boolean {
    const had = this.byRun[p.run_id];
    if (had && had.state === 'running' && p.state === 'running' && p.done < had.done) return false;
    if (had && had.state !== 'running' && p.state === 'running') return false;
    this.byRun = { ...this.byRun, [p.run_id]: p };
    return !had || had.state !== p.state || had.done !== p.done;
  }

  /** The runs going now. */
  get running(): EvalProgress[] {
    return Object.values(this.byRun).filter((p) => p.state === 'running');
  }
}
