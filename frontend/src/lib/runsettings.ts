// One layer of a turn's settings (turn.RunSettings) as the window edits
// it: how the layers stack (app defaults → project → session → turn, a
// later one wins, an unset field inherits), what is wrong with a layer in
// the Go side's own words (turn.RunSettings.Validate), where each value
// comes from in words, and the header's short summary of a session's own
// settings. Shared by the editor, the stores that load and save a layer,
// and the fake backend.
import type { Resolved, RunSettings, Settings } from './types';

/** One layer for resolveLayers: turn.Layer. */
export interface Layer {
  name: string;
  settings: RunSettings;
}

/** The layers, as turn.LayerApp … LayerTurn name them. */
export type LayerName = 'app' | 'project' | 'session' | 'turn';

/** A layer's name in words, for "from …" ("app defaults", "project Research"). */
export type LayerLabels = Partial<Record<string, string>>;

const scalar = ['provider', 'model', 'workflow', 'instructions', 'temperature', 'top_p', 'max_tokens', 'seed', 'reasoning_effort'] as const;
export const limitKeys = [
  'max_steps',
  'max_tool_calls',
  'token_budget',
  'timeout',
  'stall_threshold',
  'max_tool_output',
  'code_steps',
  'code_output',
  'code_timeout',
  'code_memory_mb',
] as const;

/** Stacks layers, lowest first: turn.Resolve. */
export function resolveLayers(layers: Layer[]): Resolved {
  const out: RunSettings = {};
  const from: Record<string, string> = {};
  const set = out as Record<string, unknown>;
  for (const { name, settings: s } of layers) {
    const get = s as Record<string, unknown>;
    for (const k of scalar) {
      const v = get[k];
      if (v !== undefined && v !== null && v !== '') {
        set[k] = v;
        from[k] = name;
      }
    }
    // A pointer to "" is a value too: "no instructions" over a lower layer's.
    if (s.instructions === '') {
      out.instructions = '';
      from.instructions = name;
    }
    for (const k of ['stop', 'mcp_servers'] as const) {
      if (s[k]) {
        out[k] = [...s[k]!];
        from[k] = name;
      }
    }
    for (const k of limitKeys) {
      const v = s.limits?.[k];
      if (v) {
        out.limits = { ...noLimits(), ...out.limits, [k]: v };
        from[`limits.${k}`] = name;
      }
    }
  }
  return { settings: out, from };
}

export const noLimits = () => ({ max_steps: 0, max_tool_calls: 0, token_budget: 0, timeout: 0, stall_threshold: 0, max_tool_output: 0 });

/**
 * The app's defaults as the lowest layer (store.AppSettings.Layer): the
 * default provider, model, workflow and limits of Settings → Defaults
 * over those of its defaults.
 */
export function appLayer(st: Settings): RunSettings {
  const l: RunSettings = { ...st.defaults };
  l.provider = st.default_provider || l.provider;
  l.model = st.default_model || l.model;
  l.workflow = st.default_workflow || l.workflow;
  if (!l.limits || limitKeys.every((k) => !l.limits![k])) l.limits = st.limits;
  return l;
}

/** The fields the editor shows, by their name in Resolved.from. */
export type Field =
  | 'provider'
  | 'model'
  | 'workflow'
  | 'instructions'
  | 'temperature'
  | 'top_p'
  | 'max_tokens'
  | 'seed'
  | 'stop'
  | 'reasoning_effort'
  | 'limits.max_steps'
  | 'limits.max_tool_calls'
  | 'limits.token_budget'
  | 'limits.timeout'
  | 'limits.code_steps'
  | 'limits.code_output'
  | 'limits.code_timeout'
  | 'limits.code_memory_mb'
  | 'limits';

/** What is wrong with each field of a layer, keyed by field. */
export type Problems = Partial<Record<Field, string>>;

/**
 * What is wrong with a layer: turn.RunSettings.Validate's checks and
 * words, one message a field, so each shows by its field. Also what the
 * Go side could not even read (a fraction where a whole number goes).
 */
export function problemsOf(s: RunSettings): Problems {
  const bad: Problems = {};
  const t = s.temperature;
  if (t !== undefined && (Number.isNaN(t) || t < 0 || t > 2)) bad.temperature = `temperature must be between 0 and 2 (got ${t})`;
  const p = s.top_p;
  if (p !== undefined && (Number.isNaN(p) || p <= 0 || p > 1)) bad.top_p = `top-p must be above 0 and at most 1 (got ${p})`;
  const m = s.max_tokens;
  if (m !== undefined && !Number.isInteger(m)) bad.max_tokens = `max output tokens must be a whole number (got ${m})`;
  else if (m !== undefined && m < 1) bad.max_tokens = `max output tokens must be at least 1 (got ${m})`;
  if (s.seed !== undefined && !Number.isInteger(s.seed)) bad.seed = `the seed must be a whole number (got ${s.seed})`;
  if (s.stop && s.stop.length > 4) bad.stop = `at most 4 stop sequences (got ${s.stop.length})`;
  else if (s.stop?.some((x) => x === '')) bad.stop = 'a stop sequence cannot be empty';
  const e = s.reasoning_effort;
  if (e && !['low', 'medium', 'high'].includes(e)) bad.reasoning_effort = `reasoning effort must be low, medium or high (got "${e}")`;
  const l = s.limits;
  if (l && limitKeys.some((k) => (l[k] ?? 0) < 0)) bad.limits = 'limits cannot be negative';
  return bad;
}

/**
 * A layer as it is saved: fields not set are left out (so they inherit),
 * an empty stop list too (the Go side reads it as unset), limits only
 * when one is set.
 */
export function cleanLayer(s: RunSettings): RunSettings {
  const out: RunSettings = {};
  for (const [k, v] of Object.entries(s) as Array<[keyof RunSettings, unknown]>) {
    if (v === undefined || v === null) continue;
    if (k !== 'instructions' && v === '') continue;
    if (Array.isArray(v) && v.length === 0 && k === 'stop') continue;
    (out as Record<string, unknown>)[k] = v;
  }
  if (out.limits && limitKeys.every((k) => !out.limits![k])) delete out.limits;
  return out;
}

/** Where a field's value comes from, in words: "set here", "from project Research", or "" when no layer sets it. */
export function originOf(field: string, here: boolean, inherited: Resolved, labels: LayerLabels): string {
  if (here) return 'set here';
  const layer = inherited.from?.[field];
  if (!layer) return '';
  return `from ${labels[layer] ?? layer}`;
}

/**
 * The header's summary of a session's own settings: what it sets of
 * instructions and sampling ("Instructions · T 0.3"), '' when nothing.
 */
export function summary(s: RunSettings | null | undefined): string {
  if (!s) return '';
  const parts: string[] = [];
  if (s.instructions !== undefined) parts.push(s.instructions === '' ? 'No instructions' : 'Instructions');
  if (s.temperature !== undefined) parts.push(`T ${s.temperature}`);
  if (s.top_p !== undefined) parts.push(`top-p ${s.top_p}`);
  if (s.max_tokens !== undefined) parts.push(`max ${s.max_tokens}`);
  if (s.seed !== undefined) parts.push(`seed ${s.seed}`);
  if (s.stop?.length) parts.push(`${s.stop.length} stop`);
  if (s.reasoning_effort) parts.push(`effort ${s.reasoning_effort}`);
  return parts.join(' · ');
}
