// Reading a run for the Evaluations page: the suite as it ran, the matrix
// in the suite's order, why a result did not pass, the runs to compare
// with, and the charts' data (cost said unknown, not 0, when unpriced).
import { describe, expect, it } from 'vitest';
import { compareChoices, costLabel, excerpt, matrixOf, reasonOf, runCharts, shownScore, suiteOf } from './evals';
import type { CellResult, EvalRun, EvalRunSummary, ModelSummary, RunReport } from './types';

const run = (suite: unknown, over: Partial<EvalRun> = {}): EvalRun => ({
  id: 'r1',
  suite_name: 'geo',
  suite_file: '',
  suite,
  capture: 'record',
  from_run_id: '',
  state: 'completed',
  started_at: '2026-01-02T03:04:05Z',
  ...over,
});
const result = (over: Partial<CellResult>): CellResult => ({
  id: 'x',
  case_id: 'a',
  model: 'p/m',
  repeat: 1,
  state: 'passed',
  score: 1,
  outcomes: [],
  latency_ms: 10,
  tokens: 5,
  answer: '',
  answer_more: false,
  ...over,
});
const summary = (over: Partial<ModelSummary>): ModelSummary => ({
  model: 'p/m',
  total: 2,
  passed: 1,
  failed: 1,
  errors: 0,
  cancelled: 0,
  pass_rate: 0.5,
  mean_score: 0.5,
  median_latency_ms: 900,
  cost_usd: 0,
  unpriced: 0,
  ...over,
});

describe('suiteOf', () => {
  it('reads cases in order, naming unnamed ones by their place and a conversation by its last user message', () => {
    const s = suiteOf(
      run({
        name: 'geo',
        models: ['a/x', 'b/y', 3],
        repeat: 2,
        cases: [
          { id: 'capital', prompt: 'Capital?' },
          {
            messages: [
              { role: 'user', content: 'first' },
              { role: 'assistant', content: 'ok' },
              { role: 'user', content: 'last' },
            ],
          },
        ],
      }),
    );
    expect(s).toEqual({
      name: 'geo',
      workflow: '',
      models: ['a/x', 'b/y'],
      repeat: 2,
      cases: [
        { id: 'capital', description: '', prompt: 'Capital?' },
        { id: 'case-2', description: '', prompt: 'last' },
      ],
    });
  });

  it('reads a suite sent as a JSON string, and anything else as empty', () => {
    expect(suiteOf(run('{"name":"s","models":["a/b"],"cases":[{"id":"c"}]}')).cases.map((c) => c.id)).toEqual(['c']);
    expect(suiteOf(run('not json'))).toEqual({ name: 'geo', workflow: '', models: [], repeat: 1, cases: [] });
    expect(suiteOf(run(null)).repeat).toBe(1);
  });
});

describe('matrixOf', () => {
  it('lays cases down in the suite order and models × repeats across, with a gap where no result is', () => {
    const report: RunReport = {
      run: run({ name: 'geo', models: ['a/x', 'b/y'], repeat: 2, cases: [{ id: 'one' }, { id: 'two' }] }),
      results: [
        result({ case_id: 'two', model: 'b/y', repeat: 2, state: 'failed' }),
        result({ case_id: 'one', model: 'a/x', repeat: 1 }),
        result({ case_id: 'extra', model: 'c/z', repeat: 1 }),
      ],
      models: [],
      passed: 2,
      total: 3,
      planned: 8,
    };
    const m = matrixOf(report);
    expect(m.models).toEqual(['a/x', 'b/y', 'c/z']);
    expect(m.columns.map((c) => `${c.model}#${c.repeat}`)).toEqual(['a/x#1', 'a/x#2', 'b/y#1', 'b/y#2', 'c/z#1', 'c/z#2']);
    expect(m.rows.map((r) => r.case.id)).toEqual(['one', 'two', 'extra']);
    expect(m.rows[0]!.cells.map((c) => c?.state ?? null)).toEqual(['passed', null, null, null, null, null]);
    expect(m.rows[1]!.cells[3]?.state).toBe('failed');
    expect(m.rows[2]!.cells[4]?.case_id).toBe('extra');
  });
});

describe('reasonOf and shownScore', () => {
  it('says the error, else the first failing assertion, else the state; nothing for a pass', () => {
    expect(reasonOf(result({ state: 'passed' }))).toBe('');
    expect(reasonOf(result({ state: 'error', error: 'no provider' }))).toBe('no provider');
    const outcomes = [
      { kind: 'contains', passed: true, score: 1, reason: '' },
      { kind: 'regex', passed: false, score: 0, reason: 'no match' },
      { kind: 'equals', passed: false, score: 0, reason: 'differs' },
    ];
    expect(reasonOf(result({ state: 'failed', outcomes }))).toBe('regex: no match');
    expect(reasonOf(result({ state: 'cancelled', outcomes: null }))).toBe('cancelled');
  });

  it('shows a score only when it is not plainly 1 or 0', () => {
    expect(shownScore(result({ score: 1 }))).toBe('');
    expect(shownScore(result({ state: 'failed', score: 0 }))).toBe('');
    expect(shownScore(result({ state: 'failed', score: 0.4 }))).toBe('0.40');
    expect(shownScore(result({ state: 'error', score: 0.4 }))).toBe('');
  });
});

describe('compareChoices', () => {
  it('offers the same suite first, never the run itself', () => {
    const s = (id: string, suite: string): EvalRunSummary => ({
      run: run(null, { id, suite_name: suite }),
      passed: 0,
      total: 0,
      planned: 0,
    });
    const runs = [s('n', 'geo'), s('o', 'other'), s('r1', 'geo'), s('p', 'geo')];
    const c = compareChoices(runs, runs[2]!.run);
    expect(c.same.map((r) => r.run.id)).toEqual(['n', 'p']);
    expect(c.other.map((r) => r.run.id)).toEqual(['o']);
  });
});

describe('runCharts', () => {
  it('draws pass rate and latency a bar a model, in the suite order, labelled', () => {
    const charts = runCharts([summary({ model: 'a/x', pass_rate: 0.75, passed: 3, failed: 1, total: 4 }), summary({ model: 'b/y' })]);
    const values = (spec: Record<string, unknown>) => (spec.data as { values: Array<Record<string, unknown>> }).values;
    expect(values(charts.passRate).map((v) => [v.model, v.rate, v.label])).toEqual([
      ['a/x', 0.75, '75% (3/4)'],
      ['b/y', 0.5, '50% (1/2)'],
    ]);
    expect(values(charts.latency)[0]).toMatchObject({ ms: 900, label: '900 ms' });
  });

  it('says a cost is unknown rather than $0, and draws no cost chart when none is known', () => {
    const none = runCharts([summary({ unpriced: 2 }), summary({ model: 'b/y', unpriced: 2 })]);
    expect(none.cost).toBeNull();
    const some = runCharts([summary({ model: 'a/x', cost_usd: 0.012, unpriced: 1 }), summary({ model: 'b/y', unpriced: 2 })]);
    const rows = (some.cost!.data as { values: Array<Record<string, unknown>> }).values;
    expect(rows.map((v) => [v.model, v.usd, v.label])).toEqual([
      ['a/x', 0.012, '$0.01 + 1 unpriced'],
      ['b/y', null, 'unknown'],
    ]);
    expect(costLabel(summary({ cost_usd: 0.0042 }))).toBe('$0.0042');
    // Nothing ended yet: no cost to speak of, not "unknown".
    expect(costLabel(summary({ passed: 0, failed: 0, total: 2 }))).toBe('–');
  });
});

describe('excerpt', () => {
  it('keeps a short prompt and cuts a long one at a word', () => {
    expect(excerpt('  What is\nthe capital?  ')).toBe('What is the capital?');
    expect(excerpt('one two three four five six', 14)).toBe('one two three…');
  });
});
