// Formatting for people: durations, token counts, times, terminations.
import type { Outcome, Termination, Usage } from './types';

export function formatDuration(ms: number | null | undefined): string {
  if (ms == null || !Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1) return '<1 ms';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return `${m}m ${String(s).padStart(2, '0')}s`;
}

/**
 * A span a person waits through, in whole seconds and at least one:
 * "12 s", "1 min 5 s", "2 min".
 */
export function formatSeconds(ms: number): string {
  const total = Math.max(1, Math.round(Number.isFinite(ms) ? ms / 1000 : 0));
  if (total < 60) return `${total} s`;
  const m = Math.floor(total / 60);
  const s = total % 60;
  return s ? `${m} min ${s} s` : `${m} min`;
}

export function formatCount(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '–';
  if (Math.abs(n) < 10_000) return n.toLocaleString('en-US');
  if (Math.abs(n) < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function parseTime(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const t = Date.parse(iso);
  // Go's zero time (year 1) means "not set".
  if (Number.isNaN(t) || t < Date.UTC(1971, 0, 1)) return null;
  return t;
}

export const zeroUsage: Usage = { input_tokens: 0, output_tokens: 0, cached_input_tokens: 0, reasoning_tokens: 0, total_tokens: 0, estimated: false };

export function addUsage(a: Usage, b: Usage | null | undefined): Usage {
  if (!b) return a;
  return {
    input_tokens: a.input_tokens + (b.input_tokens || 0),
    output_tokens: a.output_tokens + (b.output_tokens || 0),
    cached_input_tokens: a.cached_input_tokens + (b.cached_input_tokens || 0),
    reasoning_tokens: a.reasoning_tokens + (b.reasoning_tokens || 0),
    total_tokens: a.total_tokens + (b.total_tokens || (b.input_tokens || 0) + (b.output_tokens || 0)),
    estimated: a.estimated || !!b.estimated,
  };
}

const termLabels: Record<string, string> = {
  completed: 'Completed',
  natural_completion: 'Completed',
  completed_early_after_tool_call: 'Completed after a tool call',
  max_iterations_reached: 'Step limit reached',
  max_tool_calls_reached: 'Tool-call limit reached',
  budget_exceeded: 'Token budget exceeded',
  stall_detected: 'Stalled',
  timeout: 'Timed out',
  cancelled: 'Stopped',
  failed: 'Failed',
  skipped: 'Skipped',
  interrupted: 'Interrupted',
  disk_full: 'Stopped: the disk is full',
  custom: 'Ended',
};

/** Why a turn or stage ended, for people: "Step limit reached (25/25)". */
export function describeTermination(t: Termination | null | undefined): string {
  if (!t || !t.kind) return '';
  const label = termLabels[t.kind] ?? t.kind;
  let s = label;
  switch (t.kind) {
    case 'max_iterations_reached': {
      const counts = t.properties?.counts;
      s = counts ? `Limit of ${formatCount(t.limit ?? 0)} ${counts} reached` : `${label} (${formatCount(t.used ?? 0)}/${formatCount(t.limit ?? 0)})`;
      break;
    }
    case 'max_tool_calls_reached':
    case 'budget_exceeded':
      s = `${label} (${formatCount(t.used ?? 0)}/${formatCount(t.limit ?? 0)})`;
      break;
    case 'timeout':
      s = t.limit ? `${label} after ${formatDuration(t.limit)}` : label;
      break;
    case 'stall_detected':
      s = t.call ? `${label}: ${t.call.name} called ${t.threshold ?? 'several'} times in a row with the same arguments` : t.threshold ? `${label}: the same call ${t.threshold} times` : label;
      break;
    case 'failed':
      return t.error ? `${label}: ${t.error}` : label;
    case 'disk_full':
      return t.limit ? `${label} (${formatCount(t.used ?? 0)} of ${formatCount(t.limit)} words stored)` : label;
    case 'skipped':
    case 'custom':
      return t.reason ? `${label}: ${t.reason}` : label;
  }
  if (t.stage) s += ` in ${t.stage}`;
  if (t.concluded) s += ', then answered without tools';
  return s;
}

/** A CSS-friendly class for an outcome. */
export function outcomeClass(o: Outcome | string | null | undefined): 'ok' | 'fail' | 'cancel' | 'skip' | 'run' {
  switch (o) {
    case 'succeeded':
    case 'completed':
      return 'ok';
    case 'failed':
    case 'interrupted':
      return 'fail';
    case 'cancelled':
      return 'cancel';
    case 'skipped':
      return 'skip';
  }
  return 'run';
}

/** Pretty JSON of a tool's arguments, or the text as it came. */
export function prettyJSON(v: unknown): string {
  if (v === undefined) return '';
  if (typeof v === 'string') {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  try {
    return JSON.stringify(v, null, 2);
  } catch {
    return String(v);
  }
}
