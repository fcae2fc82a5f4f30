// Evaluation runs started from a window, as they go: the latest progress
// of each, by run id. The backend tells every UI as each case ends, so a
// second window (or the browser mode beside the app) sees the same run.
import { writable } from 'svelte/store';
import type { EvalProgress } from '../types';

export const evalProgress = writable<Record<string, EvalProgress>>({});

/** Keeps p as its run's latest progress; an older one (fewer cases done) arriving late is dropped. */
export function noteEvalProgress(p: EvalProgress) {
  evalProgress.update((m) => {
    const had = m[p.run_id];
    if (had && had.state === 'running' && p.state === 'running' && p.done < had.done) return m;
    if (had && had.state !== 'running' && p.state === 'running') return m;
    return { ...m, [p.run_id]: p };
  });
}
