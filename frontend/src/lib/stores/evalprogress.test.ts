import { describe, expect, it } from 'vitest';
import type { EvalProgress } from '../types';
import { RunProgress } from './evalprogress.svelte';

const p = (over: Partial<EvalProgress>): EvalProgress => ({
  run_id: 'r1',
  suite: 'geo',
  state: 'running',
  done: 0,
  planned: 4,
  passed: 0,
  failed: 0,
  ...over,
});

describe('RunProgress', () => {
  it('keeps each run’s latest progress', () => {
    const runs = new RunProgress();
    runs.note(p({ done: 1, passed: 1 }));
    runs.note(p({ run_id: 'r2', done: 2 }));
    runs.note(p({ done: 2, passed: 1, failed: 1 }));
    expect(runs.byRun.r1).toMatchObject({ done: 2, failed: 1 });
    expect(runs.byRun.r2?.done).toBe(2);
    expect(runs.running.map((x) => x.run_id)).toEqual(['r1', 'r2']);
  });

  it('drops progress that arrives after a later one', () => {
    const runs = new RunProgress();
    expect(runs.note(p({ done: 3 }))).toBe(true);
    expect(runs.note(p({ done: 2 }))).toBe(false);
    expect(runs.byRun.r1?.done).toBe(3);
    expect(runs.note(p({ state: 'cancelled', done: 3 }))).toBe(true);
    expect(runs.note(p({ done: 3 }))).toBe(false);
    expect(runs.byRun.r1?.state).toBe('cancelled');
  });

  it('says a run moved on only when its state or count of cases done changed', () => {
    const runs = new RunProgress();
    runs.note(p({ done: 1 }));
    expect(runs.note(p({ done: 1, passed: 1 }))).toBe(false);
    expect(runs.note(p({ done: 2, passed: 1 }))).toBe(true);
  });
});
