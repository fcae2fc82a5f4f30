import { describe, expect, it } from 'vitest';
import { pathsFromText } from './dom';
import {
  budgetLine,
  costOfSum,
  costSourceOf,
  costTitle,
  countMethodLabel,
  describeTermination,
  formatCallCost,
  formatCost,
  formatCount,
  formatDuration,
  formatLimitUSD,
  formatPercent,
  formatPerM,
  formatPrice,
  formatSeconds,
  formatTook,
  formatTokens,
  formatUSD,
  outcomeClass,
  parseTime,
  prettyJSON,
  priceSourceLabel,
  windowSourceLabel,
} from './format';
import { addCost, callsOf, stagesOf, totalsOf } from './diagnostics';
import type { BudgetState, CallDiagnostics, Price, Result } from './types';

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

describe('formatTook', () => {
  it.each([
    [63, 'less than a second'],
    [0, 'less than a second'],
    [999, 'less than a second'],
    [1000, '1 s'],
    [12_400, '12 s'],
    [65_000, '1 min 5 s'],
  ])('%d', (ms, want) => expect(formatTook(ms)).toBe(want));
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
    [
      { kind: 'max_iterations_reached', limit: 8, used: 8, concluded: true, stage: 'chat' },
      'Step limit reached (8/8) in chat, then answered without tools',
    ],
    [
      { kind: 'max_iterations_reached', limit: 3, used: 3, stage: 'draft', properties: { counts: 'revisions' } },
      'Limit of 3 revisions reached in draft',
    ],
    [
      { kind: 'stall_detected', threshold: 3, call: { name: 'read_file', arguments: '{}' } },
      'Stalled: read_file called 3 times in a row with the same arguments',
    ],
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
    expect(pathsFromText('# comment\nfile:///home/me/a%20b.csv\r\n/tmp/x.json\nhttps://example.com/y\nrelative.txt')).toEqual([
      '/home/me/a b.csv',
      '/tmp/x.json',
    ]);
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
    model_calls: [
      {
        model: 'm',
        started_at: '2025-01-01T00:00:00Z',
        completed_at: '',
        duration_ns: 1e9,
        time_to_first_token_ns: 2.5e8,
        usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 2, reasoning_tokens: 1, total_tokens: 15, estimated: false },
        request_messages: 1,
        attempts: 1,
        ok: true,
      },
    ],
    tool_calls: [
      { call_id: 'c', name: 't', arguments: '', result_size: 0, started_at: '2025-01-01T00:00:01Z', duration_ms: 5, ok: false, error: 'x' },
    ],
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

describe('formatUSD', () => {
  it.each([
    [0, '$0.00'],
    [0.0042, '$0.0042'],
    [0.00004, '<$0.0001'],
    [0.0099, '$0.0099'],
    [0.01, '$0.01'],
    [0.125, '$0.13'],
    [8.2, '$8.20'],
    [1234.5, '$1,234.50'],
    [NaN, '–'],
  ])('%d', (usd, want) => expect(formatUSD(usd)).toBe(want));

  it('writes a whole limit without cents', () => {
    expect(formatLimitUSD(10)).toBe('$10');
    expect(formatLimitUSD(12.5)).toBe('$12.50');
  });

  it('writes a price per million with the decimals it has', () => {
    expect([2.5, 10, 0.075, 0.125, 0.0125].map(formatPerM)).toEqual(['$2.50', '$10.00', '$0.075', '$0.125', '$0.0125']);
  });
});

const call = (price?: Partial<Price>, usd?: number, extra: Partial<CallDiagnostics> = {}): CallDiagnostics => ({
  model: 'm',
  started_at: '',
  completed_at: '',
  duration_ns: 0,
  time_to_first_token_ns: 0,
  usage: { input_tokens: 100, output_tokens: 10, cached_input_tokens: 0, reasoning_tokens: 0, total_tokens: 110, estimated: false },
  request_messages: 1,
  attempts: 1,
  ok: true,
  ...(price ? { price: { input_per_m: 0, output_per_m: 0, source: 'user', ...price } } : {}),
  ...(usd !== undefined ? { cost: { usd } } : {}),
  ...extra,
});

describe('formatCost', () => {
  it.each([
    ['a priced turn', { usd: 0.0042 }, '', '$0.0042'],
    ['above a cent', { usd: 1.5 }, '', '$1.50'],
    ['estimated tokens', { usd: 0.0042, estimated: true }, '', '~$0.0042'],
    ['some calls unpriced', { usd: 0.02, unpriced: 2 }, '', '$0.02 +2 unpriced'],
    ['no call priced', undefined, '', 'cost unknown'],
    ['on this machine', { usd: 0 }, 'local', 'free (local)'],
    ['a replay', { usd: 0 }, 'replay', 'replay: free'],
  ] as const)('%s', (_name, cost, source, want) => {
    expect(formatCost(cost, source)).toBe(want);
  });

  it('never says $0 for a cost nobody knows', () => {
    expect(formatCost(null)).toBe('cost unknown');
    expect(costTitle(undefined)).toMatch(/No price is known/);
  });

  it('explains an estimate and the calls left out', () => {
    expect(costTitle({ usd: 1, estimated: true, unpriced: 1 })).toBe(
      'Estimated cost, at the price each call ran at; some tokens were counted by Agentdeck because the server reported none; 1 call has no price and is left out.',
    );
  });

  it('tells free calls from unknown ones by where their price came from', () => {
    expect(costSourceOf([call({ source: 'local' }, 0), call({ source: 'local' }, 0)])).toBe('local');
    expect(costSourceOf([call({ source: 'replay' }, 0)])).toBe('replay');
    expect(costSourceOf([call({ source: 'local' }, 0), call({ source: 'user' }, 0.1)])).toBe('');
    expect(costSourceOf([call(), call()])).toBe('');
    expect(costSourceOf(null)).toBe('');
    expect(formatCallCost(call({ source: 'local' }, 0))).toBe('free (local)');
    expect(formatCallCost(call({ source: 'replay' }, 0))).toBe('replay: free');
    expect(formatCallCost(call({ source: 'user', input_per_m: 2.5 }, 0.00025))).toBe('$0.0003');
    expect(formatCallCost(call())).toBe('cost unknown');
  });

  it('reads a usage sum: unknown only when every call was unpriced', () => {
    const sum = {
      calls: 3,
      input_tokens: 1,
      output_tokens: 1,
      cached_input_tokens: 0,
      reasoning_tokens: 0,
      cost_usd: 0.5,
      unpriced: 1,
      estimated: false,
    };
    expect(formatCost(costOfSum(sum))).toBe('$0.50 +1 unpriced');
    expect(costOfSum({ ...sum, unpriced: 3, cost_usd: 0 })).toBeNull();
    expect(formatCost(costOfSum({ ...sum, estimated: true, unpriced: 0 }))).toBe('~$0.50');
  });
});

describe('prices, windows and budgets', () => {
  it('says a price and where it came from, with its date', () => {
    expect(formatPrice({ input_per_m: 2.5, output_per_m: 10, cached_input_per_m: 1.25, source: 'table', as_of: '2025-08-01' })).toBe(
      '$2.50 in · $10.00 out · $1.25 cached, per 1M tokens',
    );
    expect(formatPrice({ input_per_m: 0, output_per_m: 0, source: 'local' })).toBe('free (a server on this machine)');
    expect(formatPrice(undefined)).toBe('unknown');
    expect(priceSourceLabel({ input_per_m: 1, output_per_m: 1, source: 'table', as_of: '2025-08-01' })).toBe(
      'table of well-known models, as of 2025-08-01',
    );
    expect(priceSourceLabel({ input_per_m: 1, output_per_m: 1, source: 'user' })).toBe('set by you');
    expect(priceSourceLabel({ input_per_m: 1, output_per_m: 1, source: 'server', as_of: '2026-01-02' })).toBe(
      'listed by the server, as of 2026-01-02',
    );
  });

  it('says where a window came from and how tokens were counted', () => {
    expect(['server', 'user', 'known', 'default'].map(windowSourceLabel)).toEqual([
      'from the server',
      'set by you',
      'table of well-known models',
      'assumed default',
    ]);
    expect(countMethodLabel('tiktoken:o200k_base')).toBe('exact (tiktoken)');
    expect(countMethodLabel('estimate')).toBe('estimated');
    expect(countMethodLabel('estimate', true)).toBe("estimated, corrected by the server's last count");
  });

  it('writes a window in full', () => {
    expect([8192, 128_000, 1_000_000].map(formatTokens)).toEqual(['8,192', '128,000', '1,000,000']);
    expect(formatTokens(undefined)).toBe('–');
  });

  it('writes shares as whole percentages', () => {
    expect([0, 0.001, 0.823, 1, 1.26].map(formatPercent)).toEqual(['0%', '1%', '82%', '100%', '126%']);
  });

  it('says where a budget stands', () => {
    const b: BudgetState = {
      provider: 'openai',
      budget: { monthly_usd: 10, over_limit: 'ask' },
      spent_usd: 8.2,
      state: 'warning',
      since: '',
    };
    expect(budgetLine(b)).toBe("82% of this month's budget for openai is spent ($8.20 of $10).");
    expect(budgetLine({ ...b, spent_usd: 10.5, state: 'over' })).toBe("This month's budget for openai is spent ($10.50 of $10).");
  });
});

describe('costs in diagnostics', () => {
  it('sums stage costs when the turn has none, and finds the calls of a workflow', () => {
    expect(addCost(undefined, undefined)).toBeUndefined();
    expect(addCost({ usd: 0.1 }, { usd: 0.2, estimated: true, unpriced: 1 })).toEqual({
      usd: 0.30000000000000004,
      estimated: true,
      unpriced: 1,
    });
    const c = call({ source: 'user' }, 0.1);
    const result = { model_calls: null, stages: [{ diagnostics: { model_calls: [c] } }] } as unknown as Result;
    expect(callsOf(result)).toEqual([c]);
    expect(callsOf(null)).toEqual([]);
  });
});
