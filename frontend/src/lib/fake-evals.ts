// Evaluation runs for the fake backend (tests and `npm run dev`): two runs
// of a suite, the newer one with every state a result can end in, and a
// run of another suite. Each result that ran has a real evaluation session
// and turn in the fake, so a cell opens where it ran; the reports' model
// summaries and the diffs are computed as backend/eval/report.go does.
import type { FakeBackend } from './fake';
import type { AssertOutcome, CellResult, DiffCell, EvalRun, ModelSummary, RunDiff, RunReport } from './types';

export interface SeededEvals {
  /** Run ids: newest (geography, replay), older (geography, record), other (another suite). */
  newest: string;
  older: string;
  other: string;
  /** The eval session and turn of the newest run's capital case on gpt-4o-mini, repeat 1. */
  capitalTurn: { sessionId: string; turnId: string };
}

const models = ['openai/gpt-4o-mini', 'ollama/llama3.2'];

/** What each case answered, unless a cell says otherwise. */
const answers: Record<string, string> = {
  capital: 'Paris',
  berlin: 'Berlin.',
  'json-answer': '{"city": "Tokyo", "population": 13960000}',
  'follow-up': '13 is another prime between 10 and 20.',
};

/** A long answer: the report has its start (answer_more), evalAnswer the whole. */
const longAnswer = Array.from(
  { length: 60 },
  (_, i) => `Step ${i + 1}: 13 is not divisible by ${i + 2 <= 12 ? i + 2 : 2}, so it stays a prime candidate.`,
).join('\n');
const longStart = longAnswer.slice(0, 2000);

const suite = {
  name: 'geography',
  workflow: 'chat',
  models,
  repeat: 2,
  cases: [
    {
      id: 'capital',
      description: 'a fact, checked by text',
      prompt: 'What is the capital of {{country}}? Answer in one word.',
      vars: { country: 'France' },
      assert: [{ contains: 'Paris' }],
    },
    { id: 'berlin', prompt: 'What is the capital of Germany? Answer <b>only</b> the city.', assert: [{ contains: 'Berlin' }] },
    {
      id: 'json-answer',
      prompt:
        'Reply with only a JSON object {"city": ..., "population": ...} for the largest city in Japan, and nothing else at all, not even a code fence around it.',
      assert: [{ json_schema: { type: 'object' } }],
    },
    {
      id: 'follow-up',
      messages: [
        { role: 'user', content: 'Name a prime between 10 and 20.' },
        { role: 'assistant', content: '11' },
        { role: 'user', content: 'And another?' },
      ],
      assert: [{ judge: { rubric: 'a prime' } }],
    },
  ],
};

/** Adds the runs to b, with their sessions and turns; now is the newest run's start. */
export function seedEvals(b: FakeBackend, now: Date = new Date()): SeededEvals {
  const min = 60_000;
  const at = (ago: number) => new Date(now.getTime() - ago).toISOString();
  const older = run('r-older', 'record', '', 'completed', at(90 * min), at(88 * min));
  const newest = run('r-newest', 'replay', older.id, 'running', at(5 * min));
  const other = run('r-other', 'record', '', 'cancelled', at(3 * 24 * 60 * min), at(3 * 24 * 60 * min - min), {
    name: 'smoke',
    models: ['openai/gpt-4o-mini'],
    repeat: 1,
    cases: [{ id: 'hello', prompt: 'Say hello.' }],
  });

  const cell = (r: EvalRun, caseId: string, model: string, repeat: number, state: string, extra: Partial<CellResult> = {}): CellResult => {
    const base: CellResult = {
      id: `${r.id}-${caseId}-${model}-${repeat}`,
      case_id: caseId,
      model,
      repeat,
      state,
      score: state === 'passed' ? 1 : 0,
      outcomes: [],
      latency_ms: 1200 + repeat * 100,
      tokens: 180,
      answer: state === 'error' || state === 'running' ? '' : (answers[caseId] ?? ''),
      answer_more: false,
      ...extra,
    };
    if (state !== 'error' && state !== 'running' && !extra.session_id) {
      const s = b.addSession(`${(r.suite as { name: string }).name} · ${caseId} · ${model} #${repeat}`, new Date(r.started_at));
      s.kind = 'eval';
      const t = b.addTurn(s.id, `Evaluation case ${caseId}`, { at: new Date(r.started_at) });
      base.session_id = s.id;
      base.turn_id = t.id;
    }
    return base;
  };
  const pass = (kind: string): AssertOutcome => ({ kind, passed: true, score: 1, reason: '' });
  const fail = (kind: string, reason: string): AssertOutcome => ({ kind, passed: false, score: 0, reason });

  const olderResults: CellResult[] = [];
  for (const m of models)
    for (const rep of [1, 2]) {
      olderResults.push(
        cell(older, 'capital', m, rep, 'passed', { outcomes: [pass('contains')], cost_usd: m.startsWith('openai') ? 0.0004 : undefined }),
      );
      olderResults.push(
        cell(older, 'berlin', m, rep, 'passed', { outcomes: [pass('contains')], cost_usd: m.startsWith('openai') ? 0.0003 : undefined }),
      );
      olderResults.push(
        cell(older, 'json-answer', m, rep, rep === 1 ? 'passed' : 'failed', {
          outcomes: [rep === 1 ? pass('json_schema') : fail('json_schema', 'the answer is not JSON')],
          cost_usd: m.startsWith('openai') ? 0.0006 : undefined,
        }),
      );
      olderResults.push(
        cell(older, 'follow-up', m, rep, 'failed', {
          score: 0.35,
          outcomes: [fail('judge', 'score 0.35 < 0.5: 12 is not prime')],
          cost_usd: m.startsWith('openai') ? 0.001 : undefined,
        }),
      );
    }

  const [gpt, llama] = models as [string, string];
  const newestResults: CellResult[] = [
    cell(newest, 'capital', gpt, 1, 'passed', { outcomes: [pass('contains')] }),
    cell(newest, 'capital', gpt, 2, 'passed', { outcomes: [pass('contains')] }),
    cell(newest, 'capital', llama, 1, 'failed', {
      answer: '<img src=x onerror=alert(1)> paris',
      outcomes: [
        pass('not_contains'),
        fail('contains', 'the answer does not contain "Paris" (case-sensitive); the answer starts "<img src=x onerror=alert(1)> paris"'),
      ],
    }),
    cell(newest, 'capital', llama, 2, 'passed', { outcomes: [pass('contains')] }),
    cell(newest, 'berlin', gpt, 1, 'passed', { outcomes: [pass('contains')] }),
    cell(newest, 'berlin', gpt, 2, 'cancelled', { error: '' }),
    cell(newest, 'berlin', llama, 1, 'error', {
      error: 'the provider "ollama" is not running: connection refused',
      latency_ms: 0,
      tokens: 0,
    }),
    cell(newest, 'berlin', llama, 2, 'error', {
      error: 'the provider "ollama" is not running: connection refused',
      latency_ms: 0,
      tokens: 0,
    }),
    cell(newest, 'json-answer', gpt, 1, 'passed', { outcomes: [pass('json_schema')] }),
    cell(newest, 'json-answer', gpt, 2, 'passed', { outcomes: [pass('json_schema')] }),
    cell(newest, 'json-answer', llama, 1, 'running', { latency_ms: 0, tokens: 0 }),
    cell(newest, 'follow-up', gpt, 1, 'passed', {
      answer: longStart,
      answer_more: true,
      latency_ms: 4200,
      tokens: 900,
      score: 0.72,
      outcomes: [{ kind: 'judge', passed: true, score: 0.72, reason: 'score 0.72 ≥ 0.5' }],
    }),
    cell(newest, 'follow-up', gpt, 2, 'failed', {
      answer: '15 is prime too.',
      score: 0.4,
      outcomes: [fail('judge', 'score 0.40 < 0.5: the answer names 15')],
    }),
  ];
  const otherResults = [cell(other, 'hello', 'openai/gpt-4o-mini', 1, 'cancelled')];

  const reports = [report(newest, newestResults), report(older, olderResults), report(other, otherResults)];
  for (const r of reports) {
    b.evalReports_[r.run.id] = r;
    b.evalRuns_.push({ run: r.run, passed: r.passed, total: r.total, planned: r.planned });
  }
  for (const a of reports) for (const c of reports) if (a !== c) b.evalDiffs_[`${a.run.id}|${c.run.id}`] = diffRuns(a, c);
  const long = newestResults.find((r) => r.answer_more)!;
  b.evalAnswers_[long.id] = longAnswer;
  const first = newestResults[0]!;
  return { newest: newest.id, older: older.id, other: other.id, capitalTurn: { sessionId: first.session_id!, turnId: first.turn_id! } };

  function run(id: string, capture: string, from: string, state: string, started: string, ended?: string, s: unknown = suite): EvalRun {
    return {
      id,
      suite_name: (s as { name: string }).name,
      suite_file: `/home/me/evals/${(s as { name: string }).name}.yaml`,
      suite: s,
      capture,
      from_run_id: from,
      state,
      started_at: started,
      ...(ended ? { ended_at: ended } : {}),
    };
  }
}

/** A run's report, as eval.NewReport makes it (results are given in the suite's order). */
export function report(run: EvalRun, results: CellResult[]): RunReport {
  const order = [...((run.suite as { models?: string[] }).models ?? [])];
  const by = new Map<string, ModelSummary & { latencies: number[] }>();
  let passed = 0;
  for (const r of results) {
    if (!order.includes(r.model)) order.push(r.model);
    let m = by.get(r.model);
    if (!m)
      by.set(
        r.model,
        (m = {
          model: r.model,
          total: 0,
          passed: 0,
          failed: 0,
          errors: 0,
          cancelled: 0,
          pass_rate: 0,
          mean_score: 0,
          median_latency_ms: 0,
          cost_usd: 0,
          unpriced: 0,
          latencies: [],
        }),
      );
    m.total++;
    if (r.state === 'passed') {
      m.passed++;
      passed++;
    } else if (r.state === 'failed') m.failed++;
    else if (r.state === 'error') m.errors++;
    else if (r.state === 'cancelled') m.cancelled++;
    m.mean_score += r.score;
    if (r.cost_usd != null) m.cost_usd += r.cost_usd;
    else if (r.state !== 'running') m.unpriced++;
    if (r.turn_id) m.latencies.push(r.latency_ms);
  }
  const summaries: ModelSummary[] = [];
  for (const name of order) {
    const m = by.get(name);
    if (!m) continue;
    const { latencies, ...s } = m;
    if (s.passed + s.failed) s.pass_rate = s.passed / (s.passed + s.failed);
    if (s.total) s.mean_score /= s.total;
    const l = [...latencies].sort((x, y) => x - y);
    s.median_latency_ms = l.length === 0 ? 0 : l.length % 2 ? l[(l.length - 1) / 2]! : (l[l.length / 2 - 1]! + l[l.length / 2]!) / 2;
    summaries.push(s);
  }
  const s = run.suite as { cases?: unknown[]; models?: unknown[]; repeat?: number };
  const planned = Math.max((s.cases?.length ?? 0) * (s.models?.length ?? 0) * Math.max(s.repeat ?? 1, 1), results.length);
  return { run, results, models: summaries, passed, total: results.length, planned };
}

/** Run a against run b, as eval.DiffRuns does: in b's order, then a's cells b lacks. */
export function diffRuns(a: RunReport, b: RunReport): RunDiff {
  const d: RunDiff = {
    a: a.run.id,
    b: b.run.id,
    regressions: [],
    fixes: [],
    still_failing: [],
    same: 0,
    only_a: [],
    only_b: [],
    running: [],
  };
  const key = (r: CellResult) => JSON.stringify([r.case_id, r.model, r.repeat]);
  const inA = new Map((a.results ?? []).map((r) => [key(r), r]));
  const seen = new Set<string>();
  for (const rb of b.results ?? []) {
    seen.add(key(rb));
    const ra = inA.get(key(rb));
    const dc: DiffCell = { case_id: rb.case_id, model: rb.model, repeat: rb.repeat, a: ra, b: rb };
    const pa = ra?.state === 'passed';
    const pb = rb.state === 'passed';
    if (!ra) d.only_b!.push(dc);
    else if (ra.state === 'running' || rb.state === 'running') d.running!.push(dc);
    else if (pa && !pb) d.regressions!.push(dc);
    else if (!pa && pb) d.fixes!.push(dc);
    else if (!pa && !pb) d.still_failing!.push(dc);
    else d.same++;
  }
  for (const ra of a.results ?? [])
    if (!seen.has(key(ra))) d.only_a!.push({ case_id: ra.case_id, model: ra.model, repeat: ra.repeat, a: ra });
  return d;
}
