// What the "What changed" view (`#/diff/<a>/<b>`) shows: two turns
// compared step by step (`diffTurns`, timeline.Compare on the Go side),
// read when the view opens or its turns change, and what the page makes
// of it: the rows in runs, identical rows folded until a person opens
// them, and the differences of the totals in words ("+120 tokens").
// Answers to an older request are dropped.
import { SvelteSet } from 'svelte/reactivity';
import { messageOf, type Backend } from '../api';
import { formatDuration, formatUSD } from '../format';
import type { StepRow, TurnDiff, TurnTotals } from '../types';

/** A row of the table: a step of either turn, or a run of identical steps shown as one line until opened. */
export type DiffItem = { kind: 'row'; row: StepRow; index: number } | { kind: 'same'; rows: StepRow[]; start: number };

export class TurnDiffData {
  #backend: Pick<Backend, 'diffTurns'>;
  #asked = 0;
  diff = $state.raw<TurnDiff | null>(null);
  error = $state('');
  loading = $state(false);
  /** The runs of identical rows a person opened, by their first row's index. */
  readonly opened = new SvelteSet<number>();
  readonly items = $derived(this.diff ? foldSame(this.diff.rows ?? [], this.opened) : []);

  constructor(backend: Pick<Backend, 'diffTurns'>) {
    this.#backend = backend;
  }

  async load(turnA: string, turnB: string) {
    const ask = ++this.#asked;
    this.loading = true;
    this.error = '';
    try {
      const d = await this.#backend.diffTurns(turnA, turnB);
      if (ask !== this.#asked) return;
      this.diff = d;
      this.opened.clear();
    } catch (err) {
      if (ask !== this.#asked) return;
      this.diff = null;
      this.error = messageOf(err);
    } finally {
      if (ask === this.#asked) this.loading = false;
    }
  }

  /** Shows the identical rows of the run that starts at row start. */
  open(start: number) {
    this.opened.add(start);
  }
}

/**
 * The rows as the table lists them: each changed row (a gap, or texts that
 * differ) on its own, and each run of identical rows folded into one item
 * unless its first row's index is in opened.
 */
export function foldSame(rows: readonly StepRow[], opened: ReadonlySet<number>): DiffItem[] {
  const out: DiffItem[] = [];
  let i = 0;
  while (i < rows.length) {
    if (!identical(rows[i]!)) {
      out.push({ kind: 'row', row: rows[i]!, index: i });
      i++;
      continue;
    }
    const start = i;
    while (i < rows.length && identical(rows[i]!)) i++;
    if (opened.has(start)) {
      for (let k = start; k < i; k++) out.push({ kind: 'row', row: rows[k]!, index: k });
    } else {
      out.push({ kind: 'same', rows: rows.slice(start, i), start });
    }
  }
  return out;
}

/** A row both turns have with the same text (an edited step never is: it was changed on purpose). */
export function identical(r: StepRow): boolean {
  return r.same && !!r.a && !!r.b && !r.b.edited;
}

/** How B's totals differ from A's, in words: "+120 tokens", "−0.3 s", "same tokens". Empty parts are left out. */
export function totalsDelta(a: TurnTotals, b: TurnTotals): string[] {
  const out: string[] = [];
  const tok = b.input_tokens + b.output_tokens - (a.input_tokens + a.output_tokens);
  out.push(tok === 0 ? 'same tokens' : `${sign(tok)}${Math.abs(tok).toLocaleString('en-US')} tokens`);
  const calls = b.calls - a.calls;
  if (calls) out.push(`${sign(calls)}${Math.abs(calls)} call${Math.abs(calls) === 1 ? '' : 's'}`);
  const tools = b.tools - a.tools;
  if (tools) out.push(`${sign(tools)}${Math.abs(tools)} tool result${Math.abs(tools) === 1 ? '' : 's'}`);
  if (a.cost_usd != null || b.cost_usd != null) {
    const c = (b.cost_usd ?? 0) - (a.cost_usd ?? 0);
    out.push(c === 0 ? 'same cost' : `${sign(c)}${formatUSD(Math.abs(c))}`);
  }
  const ms = b.duration_ms - a.duration_ms;
  out.push(ms === 0 ? 'same time' : `${sign(ms)}${formatDuration(Math.abs(ms))}`);
  return out;
}

// A sign a screen reader says: "+" or the minus sign "−".
function sign(n: number): string {
  return n < 0 ? '−' : '+';
}
