// The fake's DiffTurns: two turns compared step by step from their events,
// as timeline.Compare does on the Go side. Each turn's steps are its
// model calls (the reply's text, tokens, time) and tool results (output
// or error); the steps are aligned by kind in order (a
// longest common subsequence of their kinds, so a step one side has and
// the other lacks is a gap), from the step B was re-run from (the start
// otherwise). Texts are compared word by word with lib/diff.ts.
import { wordDiff } from './diff';
import type { AgentEvent, StepCell, StepRow, TextOp, TurnDetail, TurnDiff, TurnSide, TurnTotals } from './types';

type Kind = StepRow['kind'];

/** One step of a turn as the comparison reads it. */
interface FakeStep {
  kind: Kind;
  /** The event the step is. */
  seq: number;
  /** Tool steps align only with the same tool. */
  key: string;
  cell: StepCell;
}

/** Compares turn b with turn a (usually b re-run from a). */
export function diffTurns(a: TurnDetail, aEvents: readonly AgentEvent[], b: TurnDetail, bEvents: readonly AgentEvent[]): TurnDiff {
  const rerun = b.from_turn_id === a.id && !!b.from_step;
  const from = rerun ? b.from_step! : 'start';
  const xs = fromStep(stepsOf(aEvents), aEvents, from);
  const ys = fromStep(stepsOf(bEvents), bEvents, from);
  markEdited(a, xs);
  markEdited(b, ys);
  const rows = align(xs, ys).map(([x, y]) => row(x, y));
  return {
    a: side(a, rows, 'a'),
    b: side(b, rows, 'b'),
    from,
    rows,
  };
}

// Marks the step a turn was re-run from, when an edit was made there.
function markEdited(t: TurnDetail, steps: FakeStep[]) {
  if (!t.from_edit) return;
  for (const s of steps) if (s.cell.step_id === t.from_step) s.cell.edited = true;
}

/** A turn's model calls and tool results from its events (timeline.Steps' ids: callN, toolN). */
export function stepsOf(events: readonly AgentEvent[]): FakeStep[] {
  const out: FakeStep[] = [];
  let stage = '';
  let calls = 0;
  let tools = 0;
  let live = !events.some((e) => e.type === 'live_from');
  let call: { step: FakeStep; at: number } | null = null;
  const where = () => (stage ? ` (${stage})` : '');
  for (const e of events) {
    switch (e.type) {
      case 'live_from':
        live = true;
        break;
      case 'stage_start':
        stage = e.data.stage;
        break;
      case 'think_start': {
        calls++;
        const cell: StepCell = { step_id: `call${calls}`, label: `Model call ${calls}${where()}`, text: '', duration_ms: 0 };
        if (!live) cell.recorded = true;
        call = { step: { kind: 'call', seq: e.seq, key: 'call', cell }, at: Date.parse(e.at) };
        out.push(call.step);
        break;
      }
      case 'token':
        if (call) call.step.cell.text += e.data.text;
        break;
      case 'think_end':
        if (call) {
          const c = call.step.cell;
          c.input_tokens = e.data.prompt_tokens || undefined;
          c.output_tokens = e.data.completion_tokens || undefined;
          c.duration_ms = Math.max(0, Date.parse(e.at) - call.at) || 0;
        }
        call = null;
        break;
      case 'tool_result':
      case 'tool_error': {
        tools++;
        const d = e.data;
        const text = e.type === 'tool_result' ? e.data.output : e.data.error;
        const cell: StepCell = {
          step_id: `tool${tools}`,
          label: `Tool result ${tools}: ${d.name}${where()}`,
          text,
          tool: d.name,
          duration_ms: d.duration_ms,
        };
        if (!live) cell.recorded = true;
        out.push({ kind: 'tool', seq: e.seq, key: `tool:${d.name}`, cell });
        break;
      }
    }
  }
  return out;
}

// The steps from the step with id on (a stage's, a call's or a tool's,
// found by its event as timeline.Steps numbers them); all of them from
// "start" or a step not found.
function fromStep(steps: FakeStep[], events: readonly AgentEvent[], id: string): FakeStep[] {
  const m = /^(stage|call|tool)(\d+)$/.exec(id);
  if (!m) return steps;
  const types: Record<string, string[]> = { stage: ['stage_start'], call: ['think_start'], tool: ['tool_result', 'tool_error'] };
  const at = events.filter((e) => types[m[1]!]!.includes(e.type))[Number(m[2]) - 1];
  return at ? steps.filter((s) => s.seq >= at.seq) : steps;
}

// Pairs the steps of two lists by their keys, in order; a step with no
// partner is paired with undefined.
function align(xs: FakeStep[], ys: FakeStep[]): [FakeStep | undefined, FakeStep | undefined][] {
  const n = xs.length;
  const m = ys.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = xs[i]!.key === ys[j]!.key ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: [FakeStep | undefined, FakeStep | undefined][] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (xs[i]!.key === ys[j]!.key) out.push([xs[i++], ys[j++]]);
    else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push([xs[i++], undefined]);
    else out.push([undefined, ys[j++]]);
  }
  while (i < n) out.push([xs[i++], undefined]);
  while (j < m) out.push([undefined, ys[j++]]);
  return out;
}

function row(x: FakeStep | undefined, y: FakeStep | undefined): StepRow {
  const r: StepRow = { kind: (x ?? y)!.kind, same: !!x && !!y && x.cell.text === y.cell.text };
  if (x) r.a = x.cell;
  if (y) r.b = y.cell;
  if (x && y && !r.same) r.ops = textOps(x.cell.text, y.cell.text);
  return r;
}

/** The word diff as the contract's ops (equal, insert, delete). */
export function textOps(a: string, b: string): TextOp[] {
  const names = { same: 'equal', add: 'insert', del: 'delete' } as const;
  return wordDiff(a, b).map((o) => ({ op: names[o.type], text: o.text }));
}

function side(t: TurnDetail, rows: StepRow[], which: 'a' | 'b'): TurnSide {
  const totals: TurnTotals = { calls: 0, tools: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0 };
  for (const r of rows) {
    const c = r[which];
    if (!c) continue;
    if (r.kind === 'call') totals.calls++;
    if (r.kind === 'tool') totals.tools++;
    totals.input_tokens += c.input_tokens ?? 0;
    totals.output_tokens += c.output_tokens ?? 0;
    totals.duration_ms += c.duration_ms;
    if (c.cost_usd !== undefined) totals.cost_usd = (totals.cost_usd ?? 0) + c.cost_usd;
  }
  const s: TurnSide = { turn_id: t.id, seq: t.seq, totals };
  if (t.model) s.model = t.model;
  return s;
}
