// Layout of the stage waterfall: every stage, and inside each its model and
// tool calls, as bars on one time axis shared by the whole turn.
import { formatDuration, outcomeClass, parseTime } from './format';
import type { StageResult } from './types';

export type BarKind = 'stage' | 'model' | 'tool';

export interface Bar {
  key: string;
  kind: BarKind;
  label: string;
  /** Milliseconds from the turn's first start. */
  start: number;
  end: number;
  x: number;
  y: number;
  w: number;
  h: number;
  /** Colour class: ok, fail, cancel, skip, run, model, tool. */
  cls: string;
  /** Where the first token arrived (model calls), in px. */
  ttftX?: number;
  title: string;
}

export interface Tick {
  x: number;
  label: string;
}

export interface WaterfallLayout {
  width: number;
  height: number;
  plotX: number;
  plotW: number;
  totalMs: number;
  bars: Bar[];
  ticks: Tick[];
}

export interface WaterfallOptions {
  width: number;
  labelWidth?: number;
  rowHeight?: number;
  axisHeight?: number;
  minBar?: number;
}

interface Span {
  key: string;
  kind: BarKind;
  label: string;
  start: number;
  end: number;
  cls: string;
  ttft?: number;
  title: string;
}

/** Lays out stages on a shared axis. Missing times fall back to the stage's own. */
export function layoutWaterfall(stages: readonly StageResult[], opts: WaterfallOptions): WaterfallLayout {
  const labelWidth = opts.labelWidth ?? 150;
  const rowHeight = opts.rowHeight ?? 22;
  const axisHeight = opts.axisHeight ?? 22;
  const minBar = opts.minBar ?? 2;
  const spans = collect(stages);
  const t0 = spans.length ? Math.min(...spans.map((s) => s.start)) : 0;
  const t1 = spans.length ? Math.max(...spans.map((s) => s.end)) : 0;
  const totalMs = Math.max(t1 - t0, 1);
  const plotX = labelWidth;
  const plotW = Math.max(opts.width - labelWidth - 8, 10);
  const scale = (ms: number) => plotX + (ms / totalMs) * plotW;
  const bars: Bar[] = spans.map((s, i) => {
    const start = s.start - t0;
    const end = s.end - t0;
    const x = scale(start);
    const w = Math.min(Math.max(minBar, scale(end) - x), plotX + plotW - x);
    const h = s.kind === 'stage' ? rowHeight - 6 : rowHeight - 10;
    const y = axisHeight + i * rowHeight + (rowHeight - h) / 2;
    const bar: Bar = { key: s.key, kind: s.kind, label: s.label, start, end, x, y, w: Math.max(w, minBar), h, cls: s.cls, title: s.title };
    if (s.ttft !== undefined) bar.ttftX = Math.min(scale(s.ttft - t0), x + bar.w);
    return bar;
  });
  return {
    width: opts.width,
    height: axisHeight + spans.length * rowHeight + 4,
    plotX,
    plotW,
    totalMs,
    bars,
    ticks: ticks(totalMs, plotX, plotW),
  };
}

function collect(stages: readonly StageResult[]): Span[] {
  const out: Span[] = [];
  let cursor = 0;
  stages.forEach((st, si) => {
    const d = st.diagnostics;
    let start = parseTime(d?.started_at) ?? cursor;
    let end = parseTime(d?.completed_at) ?? start + (d?.duration_ms ?? 0);
    if (end < start) end = start + (d?.duration_ms ?? 0);
    const children: Span[] = [];
    (d?.model_calls ?? []).forEach((c, i) => {
      const cs = parseTime(c.started_at) ?? start;
      const ce = cs + (c.duration_ns ?? 0) / 1e6;
      const ttft = c.time_to_first_token_ns ? cs + c.time_to_first_token_ns / 1e6 : undefined;
      const tokens = `${c.usage?.input_tokens ?? 0} in / ${c.usage?.output_tokens ?? 0} out`;
      children.push({
        key: `${st.id || si}:m${i}`,
        kind: 'model',
        label: c.model || 'model call',
        start: cs,
        end: ce,
        cls: c.ok === false ? 'fail' : 'model',
        ttft,
        title: `${c.model || 'model'} · ${formatDuration(ce - cs)} · ${tokens}${ttft !== undefined ? ` · first token ${formatDuration(ttft - cs)}` : ''}${c.error ? ` · ${c.error}` : ''}`,
      });
    });
    (d?.tool_calls ?? []).forEach((c, i) => {
      const cs = parseTime(c.started_at) ?? start;
      const ce = cs + (c.duration_ms ?? 0);
      children.push({
        key: `${st.id || si}:t${i}`,
        kind: 'tool',
        label: c.name || 'tool',
        start: cs,
        end: ce,
        cls: c.ok === false ? 'fail' : 'tool',
        title: `${c.name} · ${formatDuration(ce - cs)}${c.error ? ` · ${c.error}` : ''}`,
      });
    });
    children.sort((a, b) => a.start - b.start);
    // A stage without its own times spans its calls.
    if (children.length) {
      start = Math.min(start, ...children.map((c) => c.start));
      end = Math.max(end, ...children.map((c) => c.end));
    }
    const label = st.agent && st.name !== st.agent ? `${st.name} · ${st.agent}` : st.name || `stage ${si + 1}`;
    out.push({
      key: st.id || `s${si}`,
      kind: 'stage',
      label,
      start,
      end,
      cls: outcomeClass(st.outcome),
      title: `${label} · ${st.outcome || 'running'} · ${formatDuration(end - start)}`,
    });
    out.push(...children);
    cursor = end;
  });
  return out;
}

/** About five ticks at 1, 2 or 5 × 10^k ms. */
export function niceStep(totalMs: number, target = 5): number {
  const raw = totalMs / target;
  const pow = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-3)));
  for (const m of [1, 2, 5, 10]) {
    if (m * pow >= raw) return m * pow;
  }
  return 10 * pow;
}

function ticks(totalMs: number, plotX: number, plotW: number): Tick[] {
  const step = niceStep(totalMs);
  const out: Tick[] = [];
  for (let t = 0; t <= totalMs + 1e-9; t += step) {
    out.push({ x: plotX + (t / totalMs) * plotW, label: t === 0 ? '0' : formatDuration(t) });
  }
  return out;
}
