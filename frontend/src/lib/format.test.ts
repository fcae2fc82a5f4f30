import { describe, expect, it } from 'vitest';
import { pathsFromText } from './dom';
import { describeTermination, formatCount, formatDuration, formatSeconds, outcomeClass, parseTime, prettyJSON } from './format';
import { stagesOf, totalsOf } from './diagnostics';
import type { Result } from './types';

describe('formatDuration', () => {
  it.each([
    [0.4, '<1 ms'],
    [850, '850 ms'],
    [1234, '1.23 s'],
    [12_345, '12.3 s'],
    [125_000, '2m 05s'],
    [-1, '–'],
  ])('%d', (ms, want) => expect(formatDuration(ms)).toBe(want));
});

describe('formatSeconds', () => {
  it.each([
    [0, '1 s'],
    [200, '1 s'],
    [1499, '1 s'],
    [12_400, '12 s'],
    [59_600, '1 min'],
    [65_000, '1 min 5 s'],
    [NaN, '1 s'],
  ])('%d', (ms, want) => expect(formatSeconds(ms)).toBe(want));
});

describe('formatCount', () => {
  it.each([
    [999, '999'],
    [1234, '1,234'],
    [12_345, '12.3k'],
    [2_500_000, '2.50M'],
  ])('%d', (n, want) => expect(formatCount(n)).toBe(want));
});

describe('describeTermination', () => {
  it.each([
    [{ kind: 'max_iterations_reached', limit: 25, used: 25 }, 'Step limit reached (25/25)'],
    [{ kind: 'max_tool_calls_reached', limit: 50, used: 50 }, 'Tool-call limit reached (50/50)'],
    [{ kind: 'budget_exceeded', limit: 10000, used: 12000 }, 'Token budget exceeded (12.0k/10.0k)'],
    [{ kind: 'timeout', limit: 60000 }, 'Timed out after 1m 00s'],
    [{ kind: 'stall_detected', threshold: 3 }, 'Stalled: the same call 3 times'],
    [{ kind: 'failed', error: 'boom' }, 'Failed: boom'],
    [{ kind: 'skipped', reason: 'no input' }, 'Skipped: no input'],
    [{ kind: 'natural_completion' }, 'Completed'],
    [{ kind: 'disk_full', used: 3101, limit: 3146 }, 'Stopped: the disk is full (3,101 of 3,146 words stored)'],
    [{ kind: 'max_iterations_reached', limit: 8, used: 8, concluded: true, stage: 'chat' }, 'Step limit reached (8/8) in chat, then answered without tools'],
    [{ kind: 'max_iterations_reached', limit: 3, used: 3, stage: 'draft', properties: { counts: 'revisions' } }, 'Limit of 3 revisions reached in draft'],
    [{ kind: 'stall_detected', threshold: 3, call: { name: 'read_file', arguments: '{}' } }, 'Stalled: read_file called 3 times in a row with the same arguments'],
    [{ kind: '' }, ''],
  ] as const)('%o', (t, want) => expect(describeTermination(t)).toBe(want));
});

describe('helpers', () => {
  it('maps outcomes to colour classes', () => {
    expect(outcomeClass('succeeded')).toBe('ok');
    expect(outcomeClass('failed')).toBe('fail');
    expect(outcomeClass('cancelled')).toBe('cancel');
    expect(outcomeClass('skipped')).toBe('skip');
    expect(outcomeClass('running')).toBe('run');
  });

  it("treats Go's zero time as missing", () => {
    expect(parseTime('0001-01-01T00:00:00Z')).toBeNull();
    expect(parseTime('2025-01-01T00:00:00Z')).toBe(Date.UTC(2025, 0, 1));
  });

  it('pretty-prints JSON text and objects, and keeps other text', () => {
    expect(prettyJSON('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(prettyJSON({ a: 1 })).toBe('{\n  "a": 1\n}');
    expect(prettyJSON('not json')).toBe('not json');
  });
});

describe('pathsFromText', () => {
  it('reads file URIs and absolute paths, skipping comments', () => {
    expect(pathsFromText('# comment\nfile:///home/me/a%20b.csv\r\n/tmp/x.json\nhttps://example.com/y\nrelative.txt')).toEqual(['/home/me/a b.csv', '/tmp/x.json']);
  });
});

describe('stagesOf and totalsOf', () => {
  const res = {
    outcome: 'succeeded',
    termination: { kind: 'natural_completion' },
    started_at: '2025-01-01T00:00:00Z',
    completed_at: '2025-01-01T00:00:03Z',
    duration_ms: 3000,
    usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 2, reasoning_tokens: 1, total_tokens: 15, estimated: false },
    model_calls: [{ model: 'm', started_at: '2025-01-01T00:00:00Z', completed_at: '', duration_ns: 1e9, time_to_first_token_ns: 2.5e8, usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 2, reasoning_tokens: 1, total_tokens: 15, estimated: false }, request_messages: 1, attempts: 1, ok: true }],
    tool_calls: [{ call_id: 'c', name: 't', arguments: '', result_size: 0, started_at: '2025-01-01T00:00:01Z', duration_ms: 5, ok: false, error: 'x' }],
  } as unknown as Result;

  it('gives a plain run one implicit stage, as the store saves it', () => {
    const st = stagesOf(res, 'turn1');
    expect(st).toHaveLength(1);
    expect(st[0]).toMatchObject({ id: 'turn1', name: 'chat', outcome: 'succeeded' });
  });

  it('adds up calls, tokens and the first token', () => {
    const t = totalsOf(stagesOf(res, 'turn1'), res);
    expect(t).toMatchObject({ modelCalls: 1, toolCalls: 1, failedCalls: 1, durationMs: 3000, firstTokenMs: 250 });
    expect(t.usage.cached_input_tokens).toBe(2);
  });
});
