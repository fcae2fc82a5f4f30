// What the Evaluations page reads from a run: the suite as it ran (its
// cases in file order with their prompts, its models and repeats), a
// result's state as a word and an icon (never a colour alone), why a
// result did not pass, the matrix of cases × models × repeats, the runs to
// compare with, and the charts of how each model did: Vega-Lite specs that
// ChartView draws like any other chart. Everything here is pure.
import { formatDuration, formatPercent, formatUSD } from './format';
import type { CellResult, EvalRun, EvalRunSummary, ModelSummary, RunReport } from './types';

/** A case of the suite as it ran. Its text is the suite author's (or a model's): shown as text only. */
export interface SuiteCase {
  id: string;
  description: string;
  /** The prompt, or the last user message of a conversation ('' if neither). */
  prompt: string;
}

export interface SuiteInfo {
  name: string;
  workflow: string;
  models: string[];
  repeat: number;
  cases: SuiteCase[];
}

/** Reads a run's suite (eval.Suite as JSON); anything missing or malformed reads as empty. */
export function suiteOf(run: EvalRun): SuiteInfo {
  let v: unknown = run.suite;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      v = null;
    }
  }
  const o = isObject(v) ? v : {};
  const cases = (Array.isArray(o.cases) ? o.cases : []).map((c: unknown, i): SuiteCase => {
    const x = isObject(c) ? c : {};
    return { id: str(x.id) || `case-${i + 1}`, description: str(x.description), prompt: str(x.prompt) || lastUserMessage(x.messages) };
  });
  const repeat = typeof o.repeat === 'number' && o.repeat > 0 ? Math.floor(o.repeat) : 1;
  return {
    name: str(o.name) || run.suite_name,
    workflow: str(o.workflow),
    models: (Array.isArray(o.models) ? o.models : []).filter((m): m is string => typeof m === 'string'),
    repeat,
    cases,
  };
}

function lastUserMessage(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i--) {
    const m: unknown = messages[i];
    if (isObject(m) && m.role === 'user') return str(m.content);
  }
  return '';
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

// ---- states ----

/** How a state looks: a word, an icon and the tone of app.css's pills (ok, fail, cancel, run or plain). */
export interface StateLook {
  label: string;
  /** Icon.svelte's name for it. */
  icon: 'check' | 'x' | 'alert' | 'ban' | 'clock';
  tone: 'ok' | 'fail' | 'cancel' | 'run' | 'plain';
}

const resultLooks: Record<string, StateLook> = {
  passed: { label: 'Passed', icon: 'check', tone: 'ok' },
  failed: { label: 'Failed', icon: 'x', tone: 'fail' },
  error: { label: 'Error', icon: 'alert', tone: 'fail' },
  cancelled: { label: 'Cancelled', icon: 'ban', tone: 'cancel' },
  running: { label: 'Running', icon: 'clock', tone: 'run' },
};

/** A result's state (passed, failed, error, cancelled, running) as shown. */
export function resultLook(state: string): StateLook {
  return resultLooks[state] ?? { label: state || 'Unknown', icon: 'alert', tone: 'plain' };
}

const runLooks: Record<string, StateLook> = {
  running: { label: 'Running', icon: 'clock', tone: 'run' },
  completed: { label: 'Completed', icon: 'check', tone: 'plain' },
  cancelled: { label: 'Cancelled', icon: 'ban', tone: 'cancel' },
  failed: { label: 'Failed to run', icon: 'alert', tone: 'fail' },
};

/** A run's state (running, completed, cancelled, failed) as shown. */
export function runLook(state: string): StateLook {
  return runLooks[state] ?? { label: state || 'Unknown', icon: 'alert', tone: 'plain' };
}

/**
 * Why a result did not pass, in a line: its error, else its first failing
 * assertion's "kind: reason", else its state ('' for a pass). The same
 * words as eval.CellResult.Reason on the Go side.
 */
export function reasonOf(r: CellResult): string {
  if (r.state === 'passed') return '';
  if (r.error) return r.error;
  const o = (r.outcomes ?? []).find((x) => !x.passed);
  if (o) return `${o.kind}: ${o.reason}`;
  return r.state;
}

/** A score worth showing: one that is not plainly 1 (a pass) or 0 (a fail), as "0.72". */
export function shownScore(r: CellResult): string {
  if (r.state === 'running' || r.state === 'error' || r.state === 'cancelled') return '';
  if (r.score === 1 || r.score === 0 || !Number.isFinite(r.score)) return '';
  return r.score.toFixed(2);
}

// ---- the matrix ----

export interface MatrixColumn {
  model: string;
  repeat: number;
}

export interface MatrixRow {
  case: SuiteCase;
  /** A result per column, null where the run has none (a case not reached yet). */
  cells: Array<CellResult | null>;
}

export interface Matrix {
  models: string[];
  repeat: number;
  columns: MatrixColumn[];
  rows: MatrixRow[];
}

/**
 * Cases in the suite's order down, models × repeats across: the suite's
 * models in its order, then any other a result names; as many repeats as
 * the suite asked for or a result has. Cases a result names that the
 * suite does not are kept, after the suite's.
 */
export function matrixOf(report: RunReport): Matrix {
  const suite = suiteOf(report.run);
  const results = report.results ?? [];
  const models = [...suite.models];
  let repeat = suite.repeat;
  const cases = [...suite.cases];
  const byKey = new Map<string, CellResult>();
  for (const r of results) {
    if (!models.includes(r.model)) models.push(r.model);
    if (r.repeat > repeat) repeat = r.repeat;
    if (!cases.some((c) => c.id === r.case_id)) cases.push({ id: r.case_id, description: '', prompt: '' });
    byKey.set(cellKey(r.case_id, r.model, r.repeat), r);
  }
  const columns = models.flatMap((model) => Array.from({ length: repeat }, (_, i) => ({ model, repeat: i + 1 })));
  const rows = cases.map((c) => ({ case: c, cells: columns.map((col) => byKey.get(cellKey(c.id, col.model, col.repeat)) ?? null) }));
  return { models, repeat, columns, rows };
}

const cellKey = (caseId: string, model: string, repeat: number) => JSON.stringify([caseId, model, repeat]);

/** A prompt cut to a line's excerpt, whole words where it can. */
export function excerpt(text: string, max = 90): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

// ---- other runs ----

/** The runs a run can be compared with: of the same suite first (newest first), then the others. */
export function compareChoices(runs: readonly EvalRunSummary[], run: EvalRun): { same: EvalRunSummary[]; other: EvalRunSummary[] } {
  const rest = runs.filter((r) => r.run.id !== run.id);
  return { same: rest.filter((r) => r.run.suite_name === run.suite_name), other: rest.filter((r) => r.run.suite_name !== run.suite_name) };
}

// ---- charts ----

/** The charts of a run: pass rate, median latency and cost by model. Cost is null when no result's cost is known. */
export interface RunCharts {
  passRate: Record<string, unknown>;
  latency: Record<string, unknown>;
  cost: Record<string, unknown> | null;
}

/** How far the scale runs past the longest bar, for its label. */
const labelRoom = 1.4;

/** The scale's end when every bar is 0: a rate's 100%, a second, a cent. */
const unitOf = (field: string) => ({ rate: 1, ms: 1000, usd: 0.01 })[field] ?? 1;

/**
 * Horizontal bars, a model a bar in the suite's order, each labelled at
 * its end (so the number reads without the axis), sized a band a bar. The
 * scale runs past the longest bar, so its label has room inside the view.
 */
function bars(
  values: Array<Record<string, unknown>>,
  field: string,
  title: string,
  axis: Record<string, unknown>,
  top: number,
): Record<string, unknown> {
  const y = { field: 'model', type: 'nominal', title: null, sort: null, axis: { labelLimit: 140 } };
  return {
    data: { values },
    height: { step: 30 },
    encoding: { y },
    layer: [
      {
        mark: { type: 'bar', tooltip: true },
        encoding: {
          x: {
            field,
            type: 'quantitative',
            title,
            axis: { tickCount: 5, ...axis },
            scale: { domain: [0, (top || unitOf(field)) * labelRoom], nice: false },
          },
          tooltip: [
            { field: 'model', type: 'nominal', title: 'Model' },
            { field: 'label', type: 'nominal', title },
          ],
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4 },
        encoding: { x: { field: 'at', type: 'quantitative' }, text: { field: 'label', type: 'nominal' } },
      },
    ],
  };
}

export function runCharts(models: readonly ModelSummary[]): RunCharts {
  const passRate = bars(
    models.map((m) => ({
      model: m.model,
      rate: m.pass_rate,
      at: m.pass_rate,
      label: `${formatPercent(m.pass_rate)} (${m.passed}/${m.passed + m.failed})`,
    })),
    'rate',
    'Pass rate',
    { format: '.0%', values: [0, 0.25, 0.5, 0.75, 1] },
    1,
  );
  const latency = bars(
    models.map((m) => ({ model: m.model, ms: m.median_latency_ms, at: m.median_latency_ms, label: formatDuration(m.median_latency_ms) })),
    'ms',
    'Median latency (ms)',
    {},
    Math.max(0, ...models.map((m) => m.median_latency_ms)),
  );
  const priced = models.some((m) => pricedOf(m) > 0);
  const cost = priced
    ? bars(
        models.map((m) => {
          const unknown = pricedOf(m) === 0;
          return { model: m.model, usd: unknown ? null : m.cost_usd, at: unknown ? 0 : m.cost_usd, label: costLabel(m) };
        }),
        'usd',
        'Cost (US$)',
        { format: '$,.4~f' },
        Math.max(0, ...models.map((m) => (pricedOf(m) > 0 ? m.cost_usd : 0))),
      )
    : null;
  return { passRate, latency, cost };
}

/** The results of a model whose cost is known: those that ended, less the unpriced. */
function pricedOf(m: ModelSummary): number {
  const ended = m.passed + m.failed + m.errors + m.cancelled;
  return ended - m.unpriced;
}

/** A model's cost in a run: "$0.0123", "$0.0123 + 2 unpriced", or "unknown" when no result's price is known. */
export function costLabel(m: ModelSummary): string {
  if (pricedOf(m) <= 0) return m.unpriced ? 'unknown' : '–';
  return m.unpriced ? `${formatUSD(m.cost_usd)} + ${m.unpriced} unpriced` : formatUSD(m.cost_usd);
}
