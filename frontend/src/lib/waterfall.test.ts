import { describe, expect, it } from 'vitest';
import type { CallDiagnostics, StageResult, Usage } from './types';
import { layoutWaterfall, niceStep } from './waterfall';

const u: Usage = { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, reasoning_tokens: 0, total_tokens: 2, estimated: false };
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function call(startMs: number, durMs: number, ttftMs: number, ok = true): CallDiagnostics {
  return {
    model: 'm',
    started_at: at(startMs),
    completed_at: at(startMs + durMs),
    duration_ns: durMs * 1e6,
    time_to_first_token_ns: ttftMs * 1e6,
    usage: u,
    request_messages: 1,
    attempts: 1,
    ok,
  };
}

function stage(
  id: string,
  startMs: number,
  endMs: number,
  outcome: StageResult['outcome'],
  calls: CallDiagnostics[] = [],
  tools: Array<[number, number, boolean]> = [],
): StageResult {
  return {
    id,
    name: id,
    agent: 'a',
    phase: '',
    response: null,
    outcome,
    termination: { kind: 'natural_completion' },
    diagnostics: {
      started_at: at(startMs),
      completed_at: at(endMs),
      duration_ms: endMs - startMs,
      usage: u,
      model_calls: calls,
      tool_calls: tools.map(([s, d, ok], i) => ({
        call_id: `c${i}`,
        name: `tool${i}`,
        arguments: '{}',
        result_size: 0,
        started_at: at(s),
        duration_ms: d,
        ok,
      })),
      input_messages: 1,
      output_messages: 1,
    },
  };
}

describe('layoutWaterfall', () => {
  const stages = [
    stage('plan', 0, 1000, 'succeeded', [call(0, 900, 200)]),
    stage('work', 1000, 4000, 'failed', [call(1000, 1000, 100), call(2500, 1500, 300, false)], [[2100, 300, true]]),
  ];
  const lay = layoutWaterfall(stages, { width: 600, labelWidth: 100, rowHeight: 20, axisHeight: 20, minBar: 2 });

  it('puts every stage and its calls on one row each, calls under their stage in time order', () => {
    expect(lay.bars.map((b) => `${b.kind}:${b.label}`)).toEqual([
      'stage:plan · a',
      'model:m',
      'stage:work · a',
      'model:m',
      'tool:tool0',
      'model:m',
    ]);
    expect(lay.height).toBe(20 + 6 * 20 + 4);
  });

  it('shares one time axis: x is proportional to time since the first start', () => {
    expect(lay.totalMs).toBe(4000);
    expect(lay.plotX).toBe(100);
    expect(lay.plotW).toBe(600 - 100 - 8);
    const work = lay.bars[2]!;
    expect(work.x).toBeCloseTo(100 + (1000 / 4000) * lay.plotW);
    expect(work.w).toBeCloseTo((3000 / 4000) * lay.plotW);
    const tool = lay.bars[4]!;
    expect(tool.start).toBe(2100);
    expect(tool.x).toBeCloseTo(100 + (2100 / 4000) * lay.plotW);
  });

  it('colours by outcome and marks failed calls', () => {
    expect(lay.bars[0]!.cls).toBe('ok');
    expect(lay.bars[2]!.cls).toBe('fail');
    expect(lay.bars[1]!.cls).toBe('model');
    expect(lay.bars[4]!.cls).toBe('tool');
    expect(lay.bars[5]!.cls).toBe('fail');
  });

  it('marks the time to first token inside a model call', () => {
    const m = lay.bars[1]!;
    expect(m.ttftX).toBeCloseTo(100 + (200 / 4000) * lay.plotW);
  });

  it('keeps tiny spans visible', () => {
    const l = layoutWaterfall([stage('s', 0, 10_000, 'succeeded', [], [[5000, 0, true]])], { width: 400, minBar: 3 });
    expect(l.bars[1]!.w).toBeGreaterThanOrEqual(3);
  });

  it('draws ticks at round times from 0 to the end', () => {
    expect(lay.ticks[0]).toEqual({ x: 100, label: '0' });
    expect(lay.ticks.map((t) => t.label)).toEqual(['0', '1.00 s', '2.00 s', '3.00 s', '4.00 s']);
    expect(lay.ticks[lay.ticks.length - 1]!.x).toBeCloseTo(100 + lay.plotW);
  });

  it('lays out a stage with missing times from its calls or after the previous stage', () => {
    const s = stage('x', 0, 0, 'succeeded', [call(500, 500, 50)]);
    s.diagnostics.started_at = '0001-01-01T00:00:00Z';
    s.diagnostics.completed_at = '0001-01-01T00:00:00Z';
    const l = layoutWaterfall([s], { width: 300 });
    expect(l.bars[0]!.end - l.bars[0]!.start).toBeGreaterThan(0);
  });

  it('handles no stages', () => {
    const l = layoutWaterfall([], { width: 300 });
    expect(l.bars).toEqual([]);
  });
});

describe('niceStep', () => {
  it.each([
    [4000, 1000],
    [1000, 200],
    [95, 20],
    [60_000, 20_000],
    [7, 2],
  ])('%d ms → %d', (total, step) => expect(niceStep(total)).toBe(step));
});
