// What the fake backend's turns do: a scripted run that exercises every
// kind of event, chosen from words in the message ("chart", "tool",
// "plan", "approve", "fail", "critique", "handoff", "think", "cite",
// "run code", "diagram"). For tests and demos.
import type { CallDiagnostics, Cost, EventType, Price, Result, Source, StageResult, ToolCallDiagnostics, Usage } from './types';

export type Step =
  | { type: Exclude<EventType, 'token' | 'turn_completed'>; data?: unknown; stage?: string; parent?: string; delay?: number }
  | { type: 'token'; text: string; stage?: string }
  | { type: 'approval'; callId: string; tool: string; args: unknown; reason: string }
  | { type: 'turn_completed' };

const answer = `Here is what I found.

## Summary

The dataset has **3 regions**; the *north* grew fastest. See [the docs](https://example.com/docs) for details.

| Region | Growth |
| --- | --- |
| North | 12% |
| South | 4% |

\`\`\`python
def growth(a, b):
    return (b - a) / a * 100
\`\`\`

1. Load the data
2. Compare the regions
`;

// Two runs of run_code: the first names a variable it never set, the second works.
const codeRuns = [
  {
    code: 'total = 0\nfor row in sales:\n    total += row["amount"]\nprint("rows:", len(sales))\nreturn totl',
    output: 'rows: 3\n',
    error: { message: 'undefined: totl', line: 5, col: 8 },
    steps: 41,
    duration_ms: 2,
  },
  {
    code: 'total = 0\nfor row in sales:\n    total += row["amount"]\n    print(row["region"], row["amount"])\nreturn total',
    output: 'North 120\nSouth 40\nEast 70\n',
    value: '230',
    steps: 57,
    duration_ms: 3,
  },
];

const diagram = `
\`\`\`mermaid
flowchart LR
  A[Load the data] --> B{Compare the regions}
  B -->|north| C[12%]
  B -->|south| D[4%]
\`\`\`
`;

const reasoning = [
  'The person wants ',
  'to know how the regions ',
  'compare. ',
  'The north grew 12% ',
  'and the south 4%, ',
  'so a table and a short ',
  'summary will do.',
];

/**
 * The answer of a turn that searched the documents: it cites the two
 * passages it was given, and a third number it was never given (shown as
 * unverified).
 */
export const citedAnswer = `The report says revenue grew in every region [1], fastest in the north [1, 2].

Costs fell too [2]; the board's target is not in the documents [9].
`;

/** The sources of the cited answer when the session has no documents: their documents are gone, so the viewer shows the copies. */
export function cannedSources(): Source[] {
  return [
    {
      n: 1,
      kind: 'passage',
      document_id: 'doc-gone',
      passage_id: 1,
      version: 'v0',
      document: 'annual-report.pdf',
      page: 3,
      heading: 'Results › Revenue',
      text: 'Revenue grew 12% in the north and 4% in the south.',
    },
    {
      n: 2,
      kind: 'passage',
      document_id: 'doc-gone',
      passage_id: 2,
      version: 'v0',
      document: 'annual-report.pdf',
      page: 4,
      heading: 'Results › Costs',
      text: 'Costs fell 3% as the north office moved.',
    },
  ];
}

/**
 * variant: a re-run's slightly different answer, so comparisons show a
 * diff. sources: what search_knowledge gives a message with "cite" (the
 * fake searches the session's documents; cannedSources when it has none).
 */
export function scriptFor(message: string, workflow: string, variant = false, sources: Source[] = cannedSources()): Step[] {
  const m = message.toLowerCase();
  const steps: Step[] = [];
  const stage = 'stage-1';
  const multi = workflow !== 'chat' && workflow !== '';
  if (multi) steps.push({ type: 'stage_start', stage, data: { stage_id: stage, stage: 'draft', phase: 'execute', agent: 'writer' } });
  if (m.includes('memory')) steps.push({ type: 'memory_recalled', data: { count: 2 } });
  if (m.includes('plan') || workflow === 'plan-execute') {
    steps.push({
      type: 'plan_generated',
      data: {
        steps: [
          { title: 'Load the data', status: 'pending' },
          { title: 'Compare regions', status: 'pending' },
          { title: 'Write the answer', status: 'pending' },
        ],
      },
    });
    for (let i = 0; i < 3; i++) {
      steps.push({ type: 'step_start', data: { step_index: i, description: '' }, delay: 150 });
      steps.push({ type: 'step_end', data: { step_index: i, success: true }, delay: 200 });
    }
  }
  if (m.includes('fail')) {
    steps.push({ type: 'think_start', stage });
    steps.push({ type: 'think_end', stage, data: { prompt_tokens: 0, completion_tokens: 0 } });
    steps.push({
      type: 'error',
      data: {
        source: 'llm',
        message:
          'Cannot reach the model server at http://127.0.0.1:11434/v1. Start it with `ollama serve`, or pick another provider in Settings.',
      },
    });
    steps.push({ type: 'turn_completed' });
    return steps;
  }
  if (m.includes('tool') || m.includes('approve')) {
    steps.push({ type: 'think_start', stage });
    steps.push({ type: 'think_end', stage, data: { prompt_tokens: 420, completion_tokens: 30 } });
    const args = { path: 'data/sales.csv', limit: 100 };
    steps.push({ type: 'tool_call', stage, data: { call_id: 'call-1', name: 'read_table', args } });
    if (m.includes('approve'))
      steps.push({ type: 'approval', callId: 'call-1', tool: 'read_table', args, reason: 'read_table reads files in the workspace.' });
    steps.push({
      type: 'tool_result',
      stage,
      parent: 'call-1',
      data: { call_id: 'call-1', name: 'read_table', output: 'region,growth\nnorth,12\nsouth,4', duration_ms: 84 },
      delay: 300,
    });
  }
  if (m.includes('run code')) {
    // A run_code call that fails, then the corrected one (demo of the code run card).
    steps.push({ type: 'think_start', stage });
    steps.push({ type: 'think_end', stage, data: { prompt_tokens: 400, completion_tokens: 60 } });
    for (const [id, run] of [
      ['call-c1', codeRuns[0]!],
      ['call-c2', codeRuns[1]!],
    ] as const) {
      steps.push({ type: 'tool_call', stage, data: { call_id: id, name: 'run_code', args: { code: run.code } } });
      steps.push({ type: 'code_run', stage, parent: id, data: { call_id: id, ...run }, delay: 120 });
      steps.push({
        type: 'tool_result',
        stage,
        parent: id,
        data: { call_id: id, name: 'run_code', output: run.error ? run.error.message : run.output, duration_ms: run.duration_ms },
      });
    }
  }
  if (m.includes('cite')) {
    const query = message.replace(/\bcite\b/gi, '').trim() || 'revenue';
    steps.push({ type: 'think_start', stage });
    steps.push({ type: 'think_end', stage, data: { prompt_tokens: 380, completion_tokens: 20 } });
    steps.push({ type: 'tool_call', stage, data: { call_id: 'call-k', name: 'search_knowledge', args: { query } } });
    const output = sources.map((s) => `[${s.n}] ${s.document}, page ${s.page ?? 1}: ${s.text}`).join('\n\n');
    steps.push({
      type: 'tool_result',
      stage,
      parent: 'call-k',
      data: { call_id: 'call-k', name: 'search_knowledge', output, duration_ms: 12 },
      delay: 100,
    });
    steps.push({ type: 'sources', stage, data: { call_id: 'call-k', sources } });
    steps.push({ type: 'think_start', stage });
    for (const chunk of citedAnswer.match(/\S+\s*/g) ?? []) steps.push({ type: 'token', text: chunk, stage });
    steps.push({ type: 'think_end', stage, data: { prompt_tokens: 600, completion_tokens: 40 } });
    if (multi) steps.push({ type: 'stage_end', stage, data: 'stage-result' });
    steps.push({ type: 'final_answer', data: { text: citedAnswer } });
    steps.push({ type: 'turn_completed' });
    return steps;
  }
  if (m.includes('handoff')) {
    steps.push({ type: 'handoff_start', data: { from: 'writer', to: 'analyst' } });
  }
  steps.push({ type: 'think_start', stage });
  // The model's reasoning streams before its answer, as a reasoning model's does.
  if (m.includes('think')) for (const piece of reasoning) steps.push({ type: 'reasoning', stage, data: { text: piece }, delay: 120 });
  const text = variant
    ? answer.replace('**3 regions**', '**three regions**').replace('| South | 4% |', '| South | 4% |\n| East | 7% |')
    : answer;
  const withDiagram = m.includes('diagram') ? text + diagram : text;
  for (const chunk of withDiagram.match(/\S+\s*/g) ?? []) steps.push({ type: 'token', text: chunk, stage });
  steps.push({ type: 'think_end', stage, data: { prompt_tokens: 512, completion_tokens: 160 } });
  // As the engine does: handoff_end once the agent handed to has answered.
  if (m.includes('handoff')) steps.push({ type: 'handoff_end', data: { to: 'analyst', outcome: 'succeeded' }, delay: 200 });
  if (m.includes('chart')) {
    steps.push({
      type: 'chart',
      data: {
        title: 'Growth by region',
        spec: {
          $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
          data: {
            values: [
              { region: 'North', growth: 12 },
              { region: 'South', growth: 4 },
              { region: 'East', growth: 7 },
            ],
          },
          mark: 'bar',
          encoding: { x: { field: 'region', type: 'nominal' }, y: { field: 'growth', type: 'quantitative' } },
        },
      },
    });
  }
  if (m.includes('artifact')) {
    const v = m.match(/artifact v(\d)/)?.[1] ?? '1';
    steps.push({
      type: 'artifact',
      data: {
        key: 'growth-dots',
        title: 'Growth dots',
        kind: 'svg',
        source: 'tool',
        content: `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="80"><title>Growth dots v${v}</title><circle cx="40" cy="40" r="${10 + 5 * Number(v)}" fill="#4c78a8"/></svg>`,
      },
    });
  }
  if (m.includes('critique') || workflow === 'critique-revise') {
    steps.push({ type: 'critique_generated', data: { score: 0.72, passed: false, feedback: 'Add the growth of the east region.' } });
    steps.push({ type: 'refining', data: { iteration: 1 } });
    steps.push({ type: 'reflection_start', data: { iteration: 1 } });
    steps.push({ type: 'reflection_end', data: { iteration: 1, score: 0.91, passed: true }, delay: 200 });
  }
  if (m.includes('compress'))
    steps.push({ type: 'context_compressed', data: { before_count: 40, after_count: 12, before_tokens: 18000, after_tokens: 5200 } });
  if (multi) steps.push({ type: 'stage_end', stage, data: 'stage-result' });
  steps.push({ type: 'final_answer', data: { text: withDiagram } });
  steps.push({ type: 'turn_completed' });
  return steps;
}

export const usage = (input: number, output: number): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cached_input_tokens: Math.floor(input / 4),
  reasoning_tokens: 0,
  total_tokens: input + output,
  estimated: false,
});

/** A plausible result for a finished fake turn, with one stage, model and tool calls. */
export function fakeResult(opts: {
  started: Date;
  ended: Date;
  model: string;
  text: string;
  ok: boolean;
  cancelled: boolean;
  error?: string;
  withTool: boolean;
  stageName?: string;
  stageId: string;
  /** The price the calls ran at (none: unknown, so no cost), as the Go side keeps it with each call. */
  price?: Price;
  provider?: string;
}): Result {
  const { started, ended } = opts;
  const dur = Math.max(1, ended.getTime() - started.getTime());
  const iso = (ms: number) => new Date(started.getTime() + ms).toISOString();
  const calls: CallDiagnostics[] = [];
  const tools: ToolCallDiagnostics[] = [];
  if (opts.withTool) {
    calls.push({
      model: opts.model,
      started_at: iso(0),
      completed_at: iso(dur * 0.25),
      duration_ns: dur * 0.25e6,
      time_to_first_token_ns: dur * 0.08e6,
      usage: usage(420, 30),
      request_messages: 2,
      attempts: 1,
      ok: true,
    });
    tools.push({
      call_id: 'call-1',
      name: 'read_table',
      arguments: '{"path":"data/sales.csv"}',
      result_size: 31,
      started_at: iso(dur * 0.27),
      duration_ms: Math.round(dur * 0.15),
      ok: true,
    });
  }
  const s = opts.withTool ? 0.45 : 0.02;
  calls.push({
    model: opts.model,
    started_at: iso(dur * s),
    completed_at: iso(dur * 0.98),
    duration_ns: dur * (0.98 - s) * 1e6,
    time_to_first_token_ns: dur * 0.1e6,
    usage: usage(512, 160),
    request_messages: 4,
    attempts: 1,
    ok: opts.ok,
    error: opts.error,
  });
  if (opts.price) {
    for (const c of calls) Object.assign(c, { provider: opts.provider, price: { ...opts.price }, cost: costAt(opts.price, c.usage) });
  }
  const cost = sumCosts(calls);
  const total = calls.reduce((u, c) => addUsage(u, c.usage), usage(0, 0));
  total.cached_input_tokens = calls.reduce((n, c) => n + c.usage.cached_input_tokens, 0);
  const outcome = opts.cancelled ? 'cancelled' : opts.ok ? 'succeeded' : 'failed';
  const termination = opts.cancelled
    ? { kind: 'cancelled' as const }
    : opts.ok
      ? { kind: 'natural_completion' as const }
      : { kind: 'failed' as const, error: opts.error };
  const stage: StageResult = {
    id: opts.stageId,
    name: opts.stageName ?? 'chat',
    agent: opts.stageName ? 'writer' : 'assistant',
    phase: opts.stageName ? 'execute' : '',
    response: opts.text ? { role: 'assistant', content: opts.text } : null,
    outcome,
    termination,
    diagnostics: {
      started_at: iso(0),
      completed_at: ended.toISOString(),
      duration_ms: dur,
      usage: total,
      cost,
      model_calls: calls,
      tool_calls: tools,
      input_messages: 2,
      output_messages: 1,
    },
  };
  return {
    messages: [],
    steps_used: calls.length,
    tool_calls_used: tools.length,
    cancelled: opts.cancelled,
    budget_exhausted: false,
    plan_steps: null,
    plan_incomplete_reason: '',
    error: opts.error ?? '',
    error_source: opts.error ? 'llm' : undefined,
    final_text: opts.text,
    ok: opts.ok,
    outcome,
    termination,
    usage: total,
    cost,
    started_at: started.toISOString(),
    completed_at: ended.toISOString(),
    duration_ms: dur,
    model_calls: calls,
    tool_calls: tools,
    stages: opts.stageName ? [stage] : undefined,
  };
}

/** What usage u costs at p (llm.Price.Cost): cached input at the cached price, or the input price. */
export function costAt(p: Price, u: Usage): Cost {
  if (p.source === 'replay') return { usd: 0, estimated: u.estimated || undefined };
  const cached = Math.min(u.cached_input_tokens, u.input_tokens);
  const usd =
    ((u.input_tokens - cached) * p.input_per_m + cached * (p.cached_input_per_m || p.input_per_m) + u.output_tokens * p.output_per_m) / 1e6;
  return { usd, estimated: u.estimated || undefined };
}

/** The sum of calls' costs (llm.CallsCost): undefined when none had a price. */
export function sumCosts(calls: readonly CallDiagnostics[]): Cost | undefined {
  let sum: Cost | undefined;
  let unpriced = 0;
  for (const c of calls) {
    if (!c.cost) {
      unpriced++;
      continue;
    }
    sum = { usd: (sum?.usd ?? 0) + c.cost.usd, estimated: sum?.estimated || c.cost.estimated || undefined };
  }
  return sum && (unpriced ? { ...sum, unpriced } : sum);
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cached_input_tokens: a.cached_input_tokens + b.cached_input_tokens,
    reasoning_tokens: a.reasoning_tokens + b.reasoning_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
    estimated: a.estimated || b.estimated,
  };
}
