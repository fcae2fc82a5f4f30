import { describe, expect, it } from 'vitest';
import type { Matrix } from './evals';
import {
  agreementLabel,
  assertionKinds,
  cellMatches,
  clamps,
  countLabel,
  filterWords,
  filtering,
  markMatches,
  noFilter,
  viewOf,
  type ViewFilter,
} from './evalview';
import { splitHighlights } from './snippet';
import type { CellResult } from './types';

const r = (over: Partial<CellResult>): CellResult => ({
  id: `${over.case_id ?? 'a'}-${over.model ?? 'p/m'}-${over.repeat ?? 1}`,
  case_id: 'a',
  model: 'p/m',
  repeat: 1,
  state: 'passed',
  score: 1,
  outcomes: [],
  latency_ms: 100,
  tokens: 10,
  answer: '',
  answer_more: false,
  ...over,
});

const f = (over: Partial<ViewFilter>): ViewFilter => ({ ...noFilter, ...over });

/** Three cases on two models: "a" passes on both, "b" fails on one (contains), "c" has an error and a judge. */
function matrix(): Matrix {
  const models = ['x/one', 'y/two'];
  const cells: Record<string, Array<CellResult | null>> = {
    a: [
      r({
        case_id: 'a',
        model: 'x/one',
        answer: 'Paris is the capital',
        latency_ms: 300,
        tokens: 40,
        cost_usd: 0.01,
        outcomes: [{ kind: 'contains', passed: true, score: 1, reason: '' }],
      }),
      r({
        case_id: 'a',
        model: 'y/two',
        answer: 'paris',
        latency_ms: 900,
        tokens: 5,
        outcomes: [{ kind: 'contains', passed: true, score: 1, reason: '' }],
      }),
    ],
    b: [
      r({
        case_id: 'b',
        model: 'x/one',
        answer: 'Berlin',
        latency_ms: 100,
        tokens: 100,
        cost_usd: 0.05,
        outcomes: [{ kind: 'contains', passed: true, score: 1, reason: '' }],
      }),
      r({
        case_id: 'b',
        model: 'y/two',
        state: 'failed',
        score: 0,
        answer: 'Bonn',
        latency_ms: 200,
        tokens: 8,
        outcomes: [{ kind: 'contains', passed: false, score: 0, reason: 'no Berlin' }],
      }),
    ],
    c: [
      r({ case_id: 'c', model: 'x/one', state: 'error', score: 0, error: 'refused', latency_ms: 0, tokens: 0 }),
      r({
        case_id: 'c',
        model: 'y/two',
        state: 'passed',
        score: 0.6,
        answer: 'thirteen',
        latency_ms: 5000,
        tokens: 300,
        outcomes: [{ kind: 'judge', passed: true, score: 0.6, reason: '' }],
      }),
    ],
    d: [null, null],
  };
  return {
    models,
    repeat: 1,
    columns: models.map((model) => ({ model, repeat: 1 })),
    rows: Object.entries(cells).map(([id, cs]) => ({ case: { id, description: '', prompt: '' }, cells: cs })),
  };
}

const ids = (m: Matrix, filter: ViewFilter, whole = {}) => viewOf(m, filter, whole).rows.map((row) => row.case.id);

describe('the matrix as filtered', () => {
  it('keeps every case and cell when nothing is filtered', () => {
    const v = viewOf(matrix(), noFilter);
    expect(v.rows.map((x) => x.case.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(v.shown).toBe(6);
    expect(v.total).toBe(6);
    expect(v.rows.every((x) => x.cells.every((c) => c.match))).toBe(true);
    expect(countLabel(v, false)).toBe('6 cells');
    expect(filtering(noFilter)).toBe(false);
    expect(filtering(f({ sort: 'latency' }))).toBe(false);
  });

  it.each([
    ['outcome failed', f({ outcome: 'failed' }), ['b'], 1],
    ['outcome error', f({ outcome: 'error' }), ['c'], 1],
    ['outcome cancelled', f({ outcome: 'cancelled' }), [], 0],
    ['model y/two', f({ model: 'y/two' }), ['a', 'b', 'c'], 3],
    ['contains failed', f({ assertion: 'failed:contains' }), ['b'], 1],
    ['contains passed', f({ assertion: 'passed:contains' }), ['a', 'b'], 3],
    ['judge passed', f({ assertion: 'passed:judge' }), ['c'], 1],
    ['search, any case', f({ search: 'PARIS' }), ['a'], 2],
    ['search trimmed', f({ search: '  bonn ' }), ['b'], 1],
    ['outcome and model', f({ outcome: 'passed', model: 'x/one' }), ['a', 'b'], 2],
  ] as const)('filters by %s', (_, filter, want, shown) => {
    const v = viewOf(matrix(), filter);
    expect(v.rows.map((x) => x.case.id)).toEqual(want);
    expect(v.shown).toBe(shown);
    expect(v.total).toBe(6);
    expect(filtering(filter)).toBe(true);
  });

  it('keeps a case whole while a cell of it matches, the others marked as not matching', () => {
    const v = viewOf(matrix(), f({ outcome: 'failed' }));
    expect(v.rows[0]!.cells.map((c) => c.match)).toEqual([false, true]);
    expect(countLabel(v, true)).toBe('1 of 6 cells');
  });

  it("shows a model's columns only", () => {
    const v = viewOf(matrix(), f({ model: 'y/two' }));
    expect(v.columns).toEqual([{ model: 'y/two', repeat: 1 }]);
    expect(v.models).toEqual(['y/two']);
    expect(v.rows[0]!.cells).toHaveLength(1);
  });

  it('searches a whole answer once it was read', () => {
    const m = matrix();
    const id = m.rows[2]!.cells[1]!.id;
    expect(ids(m, f({ search: 'prime' }))).toEqual([]);
    expect(ids(m, f({ search: 'prime' }), { [id]: 'thirteen … and 13 is prime' })).toEqual(['c']);
  });

  it.each([
    ['case', ['a', 'b', 'c', 'd']],
    ['score-asc', ['c', 'b', 'a', 'd']],
    ['score-desc', ['a', 'b', 'c', 'd']],
    ['latency', ['c', 'a', 'b', 'd']],
    ['cost', ['b', 'a', 'c', 'd']],
    ['tokens', ['c', 'b', 'a', 'd']],
  ] as const)('sorts by %s, cases without the measure last', (sort, want) => {
    expect(ids(matrix(), f({ sort }))).toEqual(want);
  });

  it('sorts over the matching cells only', () => {
    // Of y/two alone, b is fastest and c slowest; a's 900 ms sits between.
    expect(ids(matrix(), f({ model: 'y/two', sort: 'latency' }))).toEqual(['c', 'a', 'b']);
  });

  it('matches a cell by every part of the filter at once', () => {
    const cell = r({ state: 'failed', model: 'p/m', answer: 'Nope', outcomes: [{ kind: 'regex', passed: false, score: 0, reason: '' }] });
    expect(cellMatches(cell, f({ outcome: 'failed', model: 'p/m', assertion: 'failed:regex', search: 'nop' }))).toBe(true);
    expect(cellMatches(cell, f({ outcome: 'failed', assertion: 'passed:regex' }))).toBe(false);
    expect(cellMatches(cell, f({ search: 'yes' }))).toBe(false);
  });
});

describe('what the filter says', () => {
  it('lists the assertion kinds in the order first met', () => {
    const m = matrix();
    expect(assertionKinds(m.rows.flatMap((x) => x.cells).filter((c): c is CellResult => !!c))).toEqual(['contains', 'judge']);
  });

  it('says what it keeps', () => {
    expect(filterWords(f({ outcome: 'failed', model: 'x/one', assertion: 'failed:judge', search: ' paris ' }))).toEqual([
      'outcome failed',
      'model x/one',
      'judge failed',
      'answer has “paris”',
    ]);
    expect(filterWords(noFilter)).toEqual([]);
    expect(countLabel({ shown: 1, total: 1 }, true)).toBe('1 of 1 cell');
  });
});

describe('marking the search in an answer', () => {
  it('marks each match, any case, as text segments', () => {
    expect(splitHighlights(markMatches('Paris, PARIS and paris', 'paris'), true)).toEqual([
      { text: 'Paris', mark: true },
      { text: ', ', mark: false },
      { text: 'PARIS', mark: true },
      { text: ' and ', mark: false },
      { text: 'paris', mark: true },
    ]);
  });

  it('keeps line breaks and markup as text, and strips marks an answer carries', () => {
    const marked = markMatches('<b>x</b>\n\x02fake\x03 mark', 'mark');
    expect(splitHighlights(marked, true)).toEqual([
      { text: '<b>x</b>\nfake ', mark: false },
      { text: 'mark', mark: true },
    ]);
    expect(markMatches('abc', '')).toBe('abc');
  });

  it('marks nothing when lower-casing changes the length', () => {
    expect(markMatches('İstanbul', 'stan')).toBe('İstanbul');
  });
});

describe('clamping', () => {
  it.each([
    ['short', 'Paris', false, false],
    ['long', 'x'.repeat(181), false, true],
    ['many lines', 'a\nb\nc\nd', false, true],
    ['more on the server', 'short', true, true],
  ] as const)('%s', (_, text, more, want) => {
    expect(clamps(text, more)).toBe(want);
  });
});

describe('the judge/human figure', () => {
  it.each([
    ['no judge', null, ''],
    ['no judged cell', { rated: 0, agree: 0, judged: 0 }, ''],
    ['none rated', { rated: 0, agree: 0, judged: 4 }, 'Rate the cells the judge judged (4) to see how often it agrees with you.'],
    ['7 of 9', { rated: 9, agree: 7, judged: 12 }, 'The judge agrees with you on 7 of 9 rated cells (78%).'],
    ['1 of 1', { rated: 1, agree: 1, judged: 1 }, 'The judge agrees with you on 1 of 1 rated cell (100%).'],
  ] as const)('%s', (_, a, want) => {
    expect(agreementLabel(a)).toBe(want);
  });
});
