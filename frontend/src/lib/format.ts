// Formatting for people: durations, token counts, times, terminations,
// and what model calls cost, where a price came from, and how full a
// model's context is.
import type { BudgetState, CallDiagnostics, Cost, CountMethod, Outcome, Price, Termination, Usage, UsageSum } from './types';

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

/**
 * How long something took that a person did not wait through ("Thought
 * for …"): under a second says so, since "1 s" for 63 ms overstates it 16
 * times; longer spans read as formatSeconds does.
 */
export function formatTook(ms: number): string {
  if (!Number.isFinite(ms) || ms < 1000) return 'less than a second';
  return formatSeconds(ms);
}

export function formatCount(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '–';
  if (Math.abs(n) < 10_000) return n.toLocaleString('en-US');
  if (Math.abs(n) < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** A count in full, with separators: "128,000". For a window, whose exact size matters. */
export function formatTokens(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '–';
  return Math.round(n).toLocaleString('en-US');
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

export const zeroUsage: Usage = {
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  reasoning_tokens: 0,
  total_tokens: 0,
  estimated: false,
};

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
      s = counts
        ? `Limit of ${formatCount(t.limit ?? 0)} ${counts} reached`
        : `${label} (${formatCount(t.used ?? 0)}/${formatCount(t.limit ?? 0)})`;
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
      s = t.call
        ? `${label}: ${t.call.name} called ${t.threshold ?? 'several'} times in a row with the same arguments`
        : t.threshold
          ? `${label}: the same call ${t.threshold} times`
          : label;
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

// ---- cost ----

/**
 * US dollars: four decimals under a cent ("$0.0042"), two from a cent on
 * ("$1.25", "$1,234.50"); a cost too small for four decimals is "<$0.0001",
 * never "$0.0000", which would read as free.
 */
export function formatUSD(usd: number | null | undefined): string {
  if (usd == null || !Number.isFinite(usd)) return '–';
  const sign = usd < 0 ? '-' : '';
  const a = Math.abs(usd);
  if (a === 0) return '$0.00';
  if (a < 0.0001) return `${sign}<$0.0001`;
  if (a < 0.01) return `${sign}$${a.toFixed(4)}`;
  return `${sign}$${a.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** A limit in dollars, whole when it is: "$10", "$12.50". */
export function formatLimitUSD(usd: number): string {
  return Number.isInteger(usd) ? `$${usd.toLocaleString('en-US')}` : formatUSD(usd);
}

/** A price per million tokens, with as many decimals as it has (at least two): "$2.50", "$0.075". */
export function formatPerM(usd: number): string {
  if (!Number.isFinite(usd)) return '–';
  // Four decimals less up to two trailing zeros: 2.5000 is $2.50, 0.0750 is $0.075.
  return `$${usd.toFixed(4).replace(/0{1,2}$/, '')}`;
}

/**
 * Where a set of calls' prices came from, when that says more than a sum
 * of $0 would: every priced call was replayed from a recording ('replay')
 * or ran on this machine ('local'); '' otherwise.
 */
export type CostSource = 'local' | 'replay' | '';

export function costSourceOf(calls: readonly CallDiagnostics[] | null | undefined): CostSource {
  const sources = new Set((calls ?? []).flatMap((c) => (c.price ? [c.price.source] : [])));
  if (sources.size !== 1) return '';
  const [only] = sources;
  return only === 'local' || only === 'replay' ? only : '';
}

/**
 * A cost for people: "$0.0042", "~$0.0042" when some tokens were
 * estimated, "+2 unpriced" when some calls had no price, "free (local)" on
 * this machine, "replay: free" for a replay, and "cost unknown" when no
 * call had a price (never $0: nobody knows it).
 */
export function formatCost(cost: Cost | null | undefined, source: CostSource = ''): string {
  if (source === 'replay') return 'replay: free';
  const unpriced = cost?.unpriced ? ` +${cost.unpriced} unpriced` : '';
  if (source === 'local' && (!cost || cost.usd === 0)) return `free (local)${unpriced}`;
  if (!cost) return 'cost unknown';
  return `${cost.estimated ? '~' : ''}${formatUSD(cost.usd)}${unpriced}`;
}

/** Why a cost reads as it does, for its tooltip. */
export function costTitle(cost: Cost | null | undefined, source: CostSource = ''): string {
  if (source === 'replay') return 'Served from a recording: a replay costs nothing.';
  if (source === 'local') return 'A server on this machine: free.';
  if (!cost) return 'No price is known for this model: set one in Settings → Providers.';
  const parts = ['Estimated cost, at the price each call ran at'];
  if (cost.estimated) parts.push('some tokens were counted by Agentdeck because the server reported none');
  if (cost.unpriced)
    parts.push(
      `${cost.unpriced} ${cost.unpriced === 1 ? 'call has' : 'calls have'} no price and ${cost.unpriced === 1 ? 'is' : 'are'} left out`,
    );
  return `${parts.join('; ')}.`;
}

/** A call's cost: its own price's source decides free from unknown. */
export function formatCallCost(c: CallDiagnostics): string {
  return formatCost(c.cost, c.price?.source === 'local' || c.price?.source === 'replay' ? c.price.source : '');
}

/** A usage sum's cost; null when every call in it was unpriced. */
export function costOfSum(s: UsageSum): Cost | null {
  if (s.calls > 0 && s.unpriced >= s.calls) return null;
  return { usd: s.cost_usd, estimated: s.estimated || undefined, unpriced: s.unpriced || undefined };
}

/** A price for people: "$2.50 in · $10.00 out · $1.25 cached, per 1M tokens", or why it is free. */
export function formatPrice(p: Price | null | undefined): string {
  if (!p) return 'unknown';
  if (p.source === 'local') return 'free (a server on this machine)';
  if (p.source === 'replay') return 'free (replayed from a recording)';
  const cached = p.cached_input_per_m ? ` · ${formatPerM(p.cached_input_per_m)} cached` : '';
  return `${formatPerM(p.input_per_m)} in · ${formatPerM(p.output_per_m)} out${cached}, per 1M tokens`;
}

/** Where a price came from, with its date where it has one. */
export function priceSourceLabel(p: Price): string {
  const asOf = p.as_of ? `, as of ${p.as_of}` : '';
  switch (p.source) {
    case 'user':
      return 'set by you';
    case 'table':
      return `table of well-known models${asOf}`;
    case 'server':
      return `listed by the server${asOf}`;
    case 'local':
      return 'a server on this machine';
    case 'replay':
      return 'a replay';
  }
  return p.source;
}

// ---- context ----

/** Where a model's window came from (llm.Window.Source). */
export function windowSourceLabel(source: string): string {
  switch (source) {
    case 'server':
      return 'from the server';
    case 'user':
      return 'set by you';
    case 'known':
      return 'table of well-known models';
    case 'default':
      return 'assumed default';
  }
  return source;
}

/** How the meter counted (tokens.Method). */
export function countMethodLabel(method: CountMethod | string, corrected = false): string {
  const how = method.startsWith('tiktoken') ? 'exact (tiktoken)' : 'estimated';
  return corrected ? `${how}, corrected by the server's last count` : how;
}

/** A part of the prompt the meter counts, for people. */
export function meterPartLabel(name: string): string {
  const labels: Record<string, string> = {
    system: 'System prompt',
    tools: 'Tool definitions',
    history: 'Conversation',
    images: 'Images',
    draft: 'This message',
  };
  return labels[name] ?? name;
}

/** A share as a whole percentage: 0.823 is "82%"; anything above 0 shows at least 1%. */
export function formatPercent(share: number): string {
  if (!Number.isFinite(share) || share <= 0) return '0%';
  return `${Math.max(1, Math.floor(share * 100))}%`;
}

/**
 * Where a provider's monthly budget stands, for the line near the
 * composer: "82% of this month's budget for openai is spent ($8.20 of $10)".
 */
export function budgetLine(b: BudgetState): string {
  const of = `(${formatUSD(b.spent_usd)} of ${formatLimitUSD(b.budget.monthly_usd)})`;
  if (b.state === 'over') return `This month's budget for ${b.provider} is spent ${of}.`;
  return `${formatPercent(b.spent_usd / b.budget.monthly_usd)} of this month's budget for ${b.provider} is spent ${of}.`;
}

/**
 * One retry of a model call as a person reads it: what failed and what
 * happens next, e.g. "HTTP 429, rate limited · attempt 2 of 4 after 3 s".
 */
export function describeRetry(r: {
  attempt: number;
  max_attempts: number;
  status?: number;
  kind: string;
  wait_ms?: number;
  wait_ns?: number;
}): string {
  const what = r.status ? `HTTP ${r.status}` : 'no answer';
  const kind = RETRY_KINDS[r.kind] ?? r.kind.replace(/_/g, ' ');
  const waitMs = r.wait_ms ?? (r.wait_ns ?? 0) / 1e6;
  const wait = waitMs < 1000 ? `${Math.max(0, Math.round(waitMs))} ms` : `${(waitMs / 1000).toFixed(waitMs < 10_000 ? 1 : 0)} s`;
  return `${what}${kind ? `, ${kind}` : ''} · attempt ${r.attempt} of ${r.max_attempts} after ${wait}`;
}

const RETRY_KINDS: Record<string, string> = {
  rate_limited: 'rate limited',
  server: 'server error',
  network: 'connection failed',
  timeout: 'timed out',
  html_page: 'a web page instead of the API',
};
