// What a person does to a run's matrix to read it: filter its cells by
// outcome, model and assertion, search their answers, sort its cases, and
// how many cells that leaves. promptfoo's results table is the model: a
// case (a row) stays while any of its cells matches, the cells that do not
// are dimmed in it, and the filter says what it keeps and is cleared in
// one press. Everything here is pure; the matrix is lib/evals.ts's.
import type { Matrix, MatrixColumn, MatrixRow } from './evals';
import type { Agreement, CellResult } from './types';

/** The outcomes a cell can be filtered by. */
export const outcomes = ['passed', 'failed', 'error', 'cancelled'] as const;
export type Outcome = (typeof outcomes)[number];

/** The orders of the cases: the suite's, or by a measure of their shown cells. */
export const sorts = {
  case: 'Case (suite order)',
  'score-asc': 'Score, lowest first',
  'score-desc': 'Score, highest first',
  latency: 'Latency, slowest first',
  cost: 'Cost, highest first',
  tokens: 'Tokens, most first',
} as const;
export type SortKey = keyof typeof sorts;

export interface ViewFilter {
  /** '' for any outcome. */
  outcome: Outcome | '';
  /** A model ("provider/model"); '' for every model. */
  model: string;
  /** An assertion kind and what it did, as "failed:contains" or "passed:judge"; '' for any. */
  assertion: string;
  /** Text the answer holds, any case; '' for any answer. */
  search: string;
  sort: SortKey;
}

export const noFilter: ViewFilter = { outcome: '', model: '', assertion: '', search: '', sort: 'case' };

/** Whether f keeps less than every cell (the order alone is not a filter). */
export function filtering(f: ViewFilter): boolean {
  return f.outcome !== '' || f.model !== '' || f.assertion !== '' || f.search.trim() !== '';
}

/** The assertion filter's choices: each kind a result of report ran, in the order first met. */
export function assertionKinds(results: readonly CellResult[]): string[] {
  const out: string[] = [];
  for (const r of results) for (const o of r.outcomes ?? []) if (!out.includes(o.kind)) out.push(o.kind);
  return out;
}

/** The answer of r as far as it is known: the whole one when it was loaded (by result id), else the report's preview. */
export const answerOf = (r: CellResult, whole: Readonly<Record<string, string>> = {}): string => whole[r.id] ?? r.answer ?? '';

/** Whether a cell passes f's outcome, model, assertion and search (not its order). */
export function cellMatches(r: CellResult, f: ViewFilter, whole: Readonly<Record<string, string>> = {}): boolean {
  if (f.outcome && r.state !== f.outcome) return false;
  if (f.model && r.model !== f.model) return false;
  if (f.assertion) {
    const colon = f.assertion.indexOf(':');
    const want = f.assertion.slice(0, colon) === 'passed';
    const kind = f.assertion.slice(colon + 1);
    if (!(r.outcomes ?? []).some((o) => o.kind === kind && o.passed === want)) return false;
  }
  const q = f.search.trim().toLowerCase();
  if (q && !answerOf(r, whole).toLowerCase().includes(q)) return false;
  return true;
}

export interface ViewCell {
  result: CellResult | null;
  /** The cell passes the filter (false for an empty cell while filtering). */
  match: boolean;
}

export interface ViewRow {
  case: MatrixRow['case'];
  cells: ViewCell[];
}

export interface MatrixView {
  models: string[];
  repeat: number;
  columns: MatrixColumn[];
  /** The cases with a cell that matches, in the order asked for. */
  rows: ViewRow[];
  /** Cells that match, of all the cells that have a result. */
  shown: number;
  total: number;
}

/**
 * The matrix as f shows it: the columns of f's model only, the cases with
 * a matching cell (every case when nothing is filtered), sorted by f.sort
 * over each case's matching cells; ties keep the suite's order.
 */
export function viewOf(m: Matrix, f: ViewFilter, whole: Readonly<Record<string, string>> = {}): MatrixView {
  const on = filtering(f);
  const keep = m.columns.map((c) => !f.model || c.model === f.model);
  const columns = m.columns.filter((_, i) => keep[i]);
  const models = f.model ? m.models.filter((x) => x === f.model) : m.models;
  let total = 0;
  let shown = 0;
  for (const row of m.rows) for (const c of row.cells) if (c) total++;
  const rows: ViewRow[] = [];
  for (const row of m.rows) {
    const cells = row.cells.filter((_, i) => keep[i]).map((r) => ({ result: r, match: !!r && cellMatches(r, f, whole) }));
    const n = cells.filter((c) => c.match).length;
    shown += n;
    if (on && n === 0) continue;
    rows.push({ case: row.case, cells: on ? cells : cells.map((c) => ({ ...c, match: true })) });
  }
  return { models: models.length ? models : m.models, repeat: m.repeat, columns, rows: sortRows(rows, f.sort), shown, total };
}

/** A case's measure for a sort, over its matching cells; null when none has it (those go last). */
function measure(row: ViewRow, sort: SortKey): number | null {
  const rs = row.cells.filter((c) => c.match && c.result).map((c) => c.result!);
  const ended = rs.filter((r) => r.state !== 'running');
  switch (sort) {
    case 'score-asc':
    case 'score-desc':
      return ended.length ? ended.reduce((s, r) => s + r.score, 0) / ended.length : null;
    case 'latency':
      return ended.length ? Math.max(...ended.map((r) => r.latency_ms)) : null;
    case 'cost': {
      const priced = rs.filter((r) => r.cost_usd != null);
      return priced.length ? priced.reduce((s, r) => s + r.cost_usd!, 0) : null;
    }
    case 'tokens':
      return ended.length ? ended.reduce((s, r) => s + r.tokens, 0) : null;
    default:
      return null;
  }
}

/** Rows in sort's order (stable: ties, and rows without the measure, keep theirs; the latter go last). */
export function sortRows(rows: ViewRow[], sort: SortKey): ViewRow[] {
  if (sort === 'case') return rows;
  const asc = sort === 'score-asc';
  const keyed = rows.map((row, i) => ({ row, i, v: measure(row, sort) }));
  keyed.sort((a, b) => {
    if (a.v == null || b.v == null) return a.v == null && b.v == null ? a.i - b.i : a.v == null ? 1 : -1;
    const d = asc ? a.v - b.v : b.v - a.v;
    return d || a.i - b.i;
  });
  return keyed.map((k) => k.row);
}

/** "12 of 40 cells" (or "40 cells" when nothing is filtered). */
export function countLabel(v: Pick<MatrixView, 'shown' | 'total'>, on: boolean): string {
  const noun = v.total === 1 ? 'cell' : 'cells';
  return on ? `${v.shown} of ${v.total} ${noun}` : `${v.total} ${noun}`;
}

/** What f keeps, in words, for the line above the matrix: ["outcome failed", "model openai/gpt-4o-mini", …]. */
export function filterWords(f: ViewFilter): string[] {
  const out: string[] = [];
  if (f.outcome) out.push(`outcome ${f.outcome}`);
  if (f.model) out.push(`model ${f.model}`);
  if (f.assertion) {
    const colon = f.assertion.indexOf(':');
    out.push(`${f.assertion.slice(colon + 1)} ${f.assertion.slice(0, colon)}`);
  }
  if (f.search.trim()) out.push(`answer has “${f.search.trim()}”`);
  return out;
}

/**
 * text with each case-insensitive occurrence of query between \x02 and
 * \x03, as Highlighted.svelte reads a search snippet. Those two marks are
 * removed from text first, so a model's answer cannot mark itself.
 */
export function markMatches(text: string, query: string): string {
  const clean = text.replaceAll('\x02', '').replaceAll('\x03', '');
  const q = query.trim().toLowerCase();
  if (!q) return clean;
  const lower = clean.toLowerCase();
  // toLowerCase can change a string's length (İ): then mark nothing rather than the wrong span.
  if (lower.length !== clean.length) return clean;
  let out = '';
  let at = 0;
  for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, i + q.length)) {
    out += `${clean.slice(at, i)}\x02${clean.slice(i, i + q.length)}\x03`;
    at = i + q.length;
  }
  return out + clean.slice(at);
}

/** How many characters or lines a cell shows before it clamps: a longer answer gets Show more. */
const clampChars = 180;
const clampLines = 3;

/** Whether an answer is long enough to be clamped in its cell (or the server has more of it). */
export function clamps(answer: string, more: boolean): boolean {
  return more || answer.length > clampChars || answer.split('\n').length > clampLines;
}

/**
 * The judge/human figure of a run, in words: "The judge agrees with you on
 * 7 of 9 rated cells (78%)"; a nudge when the judge judged cells nobody
 * rated; '' when the run has no judge.
 */
export function agreementLabel(a: Pick<Agreement, 'rated' | 'agree' | 'judged'> | null): string {
  if (!a || a.judged === 0) return '';
  if (a.rated === 0) return `Rate the cells the judge judged (${a.judged}) to see how often it agrees with you.`;
  const noun = a.rated === 1 ? 'rated cell' : 'rated cells';
  return `The judge agrees with you on ${a.agree} of ${a.rated} ${noun} (${Math.round((100 * a.agree) / a.rated)}%).`;
}
