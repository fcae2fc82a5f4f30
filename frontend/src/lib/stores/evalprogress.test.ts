import { get } from 'svelte/store';
import { beforeEach, describe, expect, it } from 'vitest';
import type { EvalProgress } from '../types';
import { evalProgress, noteEvalProgress } from './evalprogress';

const p = (over: Partial<EvalProgress>): EvalProgress => ({ run_id: 'r1', suite: 'geo', state: 'running', done: 0, planned: 4, passed: 0, failed: 0, ...over });

describe('evalProgress', () => {
  beforeEach(() => evalProgress.set({}));

  it('keeps each run’s latest progress', () => {
    noteEvalProgress(p({ done: 1, passed: 1 }));
    noteEvalProgress(p({ run_id: 'r2', done: 2 }));
    noteEvalProgress(p({ done: 2, passed: 1, failed: 1 }));
    expect(get(evalProgress).r1).toMatchObject({ done: 2, failed: 1 });
    expect(get(evalProgress).r2?.done).toBe(2);
  });

  it('drops progress that arrives after a later one', () => {
    noteEvalProgress(p({ done: 3 }));
    noteEvalProgress(p({ done: 2 }));
    expect(get(evalProgress).r1?.done).toBe(3);
    noteEvalProgress(p({ state: 'cancelled', done: 3 }));
    noteEvalProgress(p({ done: 3 }));
    expect(get(evalProgress).r1?.state).toBe('cancelled');
  });
});
