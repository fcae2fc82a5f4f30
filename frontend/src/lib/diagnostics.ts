// Roll-ups for the diagnostics panel and the comparison view.
import { addUsage, parseTime, zeroUsage } from './format';
import type { AgentRun, Resolved, Sampling } from './generated';
import type { CallDiagnostics, Cost, Result, StageResult, Usage } from './types';

/** A turn's stages: the workflow's, or for a plain run one implicit stage (as the store saves it). */
export function stagesOf(result: Result | null | undefined, turnId: string): StageResult[] {
  if (!result) return [];
  if (result.stages?.length) return result.stages;
  return [
    {
      id: turnId,
      name: 'chat',
      agent: 'assistant',
      phase: '',
      response: null,
      outcome: result.outcome,
      termination: result.termination,
      diagnostics: {
        started_at: result.started_at,
        completed_at: result.completed_at,
        duration_ms: result.duration_ms,
        usage: result.usage,
        cost: result.cost,
        model_calls: result.model_calls,
        tool_calls: result.tool_calls,
        input_messages: 0,
        output_messages: 0,
      },
    },
  ];
}

export interface Totals {
  usage: Usage;
  durationMs: number;
  modelCalls: number;
  toolCalls: number;
  failedCalls: number;
  /** The first model call's time to first token, in ms. */
  firstTokenMs: number | null;
  /** What the calls cost: the turn's, else the stages' sum; undefined when no call had a price. */
  cost: Cost | undefined;
  /** Every model call, in order: their prices say whether a $0 cost is free or a replay. */
  calls: CallDiagnostics[];
}

export function totalsOf(stages: readonly StageResult[], result?: Result | null): Totals {
  let usage = zeroUsage;
  let modelCalls = 0;
  let toolCalls = 0;
  let failedCalls = 0;
  let firstTokenMs: number | null = null;
  let start = Infinity;
  let end = -Infinity;
  let cost: Cost | undefined;
  const calls: CallDiagnostics[] = [];
  for (const s of stages) {
    const d = s.diagnostics;
    usage = addUsage(usage, d?.usage);
    cost = addCost(cost, d?.cost);
    for (const c of d?.model_calls ?? []) {
      calls.push(c);
      modelCalls++;
      if (!c.ok) failedCalls++;
      if (firstTokenMs === null && c.time_to_first_token_ns) firstTokenMs = c.time_to_first_token_ns / 1e6;
    }
    for (const c of d?.tool_calls ?? []) {
      toolCalls++;
      if (!c.ok) failedCalls++;
    }
    const a = parseTime(d?.started_at);
    const b = parseTime(d?.completed_at);
    if (a !== null) start = Math.min(start, a);
    if (b !== null) end = Math.max(end, b);
  }
  const spanMs =
    Number.isFinite(start) && Number.isFinite(end) ? end - start : stages.reduce((n, s) => n + (s.diagnostics?.duration_ms ?? 0), 0);
  return {
    usage: result?.usage && result.usage.total_tokens >= usage.total_tokens ? result.usage : usage,
    durationMs: result?.duration_ms || spanMs,
    modelCalls,
    toolCalls,
    failedCalls,
    firstTokenMs,
    cost: result?.cost ?? cost,
    calls,
  };
}

/** Two sums of costs (llm.Cost.Add); undefined only when both are. */
export function addCost(a: Cost | undefined, b: Cost | null | undefined): Cost | undefined {
  if (!b) return a;
  if (!a) return { ...b };
  const unpriced = (a.unpriced ?? 0) + (b.unpriced ?? 0);
  return { usd: a.usd + b.usd, ...(a.estimated || b.estimated ? { estimated: true } : {}), ...(unpriced ? { unpriced } : {}) };
}

/**
 * A turn's model calls, for where its cost came from: the result's own
 * list, else its stages' (a workflow's result may keep them there only).
 */
export function callsOf(result: Result | null | undefined): CallDiagnostics[] {
  if (!result) return [];
  if (result.model_calls?.length) return result.model_calls;
  return (result.stages ?? []).flatMap((s) => s.diagnostics?.model_calls ?? []);
}

/** The time to first token of a stage's first model call, in ms. */
export function stageFirstToken(s: StageResult): number | null {
  const c = (s.diagnostics?.model_calls ?? []).find((x) => x.time_to_first_token_ns > 0);
  return c ? c.time_to_first_token_ns / 1e6 : null;
}

/** One row of a turn's settings: a value and the layer it came from (app, project, session, turn, or workflow for one agent). */
export interface SettingRow {
  label: string;
  value: string;
  from: string;
  /** The agent whose workflow file set it; '' for the turn's own. */
  agent: string;
}

const samplingFields: [keyof Sampling, string][] = [
  ['temperature', 'Temperature'],
  ['top_p', 'Top-p'],
  ['max_tokens', 'Max tokens'],
  ['seed', 'Seed'],
  ['stop', 'Stop'],
  ['reasoning_effort', 'Reasoning effort'],
];

function samplingValue(s: Sampling, k: keyof Sampling): string {
  const v = s[k];
  if (v === undefined || v === null || v === '') return '';
  if (Array.isArray(v)) return v.map((x) => JSON.stringify(x)).join(' ');
  return String(v);
}

/**
 * The sampling a turn ran with, each value with where it came from, then
 * what each agent's workflow file set over it (which won, for that agent).
 */
export function settingRows(ts: { resolved: Resolved; agents: Record<string, AgentRun> }): SettingRow[] {
  const rows: SettingRow[] = [];
  const from = ts.resolved.from ?? {};
  for (const [k, label] of samplingFields) {
    const value = samplingValue(ts.resolved.settings, k);
    if (value) rows.push({ label, value, from: from[k] ?? '', agent: '' });
  }
  for (const name of Object.keys(ts.agents).sort()) {
    for (const [k, label] of samplingFields) {
      const value = samplingValue(ts.agents[name]!.sampling, k);
      if (value) rows.push({ label, value, from: 'workflow', agent: name });
    }
  }
  return rows;
}

/** The instructions' first line, with an ellipsis when there is more. */
export function firstLine(text: string): string {
  const [first = '', ...rest] = text.split('\n');
  return rest.some((l) => l.trim()) ? `${first} …` : first;
}
