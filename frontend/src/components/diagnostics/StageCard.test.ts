// The stage card says how a model call's answer was read when it was not a
// plain stream (a server that ignored streaming, tool calls written as
// text): the call's diagnostics notes, as text, never as an error.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import StageCard from './StageCard.svelte';
import type { CallDiagnostics, StageResult } from '../../lib/types';
import type { Retry } from '../../lib/generated';

const call = (over: Partial<CallDiagnostics> = {}): CallDiagnostics =>
  ({
    model: 'm',
    ok: true,
    attempts: 1,
    usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, reasoning_tokens: 0, total_tokens: 2, estimated: false },
    ...over,
  }) as CallDiagnostics;

const stage = (calls: CallDiagnostics[]): StageResult =>
  ({
    id: 's1',
    name: 'chat',
    agent: 'assistant',
    phase: '',
    response: null,
    outcome: 'succeeded',
    termination: { kind: 'natural_completion' },
    diagnostics: { duration_ms: 10, usage: calls[0]!.usage, model_calls: calls, tool_calls: [], input_messages: 1, output_messages: 1 },
  }) as unknown as StageResult;

describe('StageCard', () => {
  it("lists each model call's notes under its number", () => {
    const { container } = render(StageCard, {
      stage: stage([call(), call({ notes: ['The model wrote its tool calls as text; they were read as calls.', '<b>not markup</b>'] })]),
      index: 0,
    });
    const items = [...container.querySelectorAll('.notes li')].map((li) => li.textContent);
    expect(items).toEqual([
      'Model call 2: The model wrote its tool calls as text; they were read as calls.',
      'Model call 2: <b>not markup</b>',
    ]);
    expect(container.querySelector('.notes b')).toBeNull();
    expect(container.querySelector('.errors')).toBeNull();
  });

  it("lists each model call's retries: what failed, the attempt of how many, the wait", () => {
    const retries = [
      { attempt: 2, max_attempts: 4, status: 429, kind: 'rate_limited', message: 'Slow down.', wait_ns: 3e9 },
      { attempt: 3, max_attempts: 4, kind: 'network', message: 'Dropped.', wait_ns: 250e6 },
    ] satisfies Retry[];
    const { container } = render(StageCard, { stage: stage([call({ attempts: 3, retries })]), index: 0 });
    const items = [...container.querySelectorAll('.retries li')].map((li) => li.textContent);
    expect(items).toEqual([
      'Model call 1 retried: HTTP 429, rate limited · attempt 2 of 4 after 3.0 s. Slow down.',
      'Model call 1 retried: no answer, connection failed · attempt 3 of 4 after 250 ms. Dropped.',
    ]);
  });

  it('shows no notes list when no call has notes', () => {
    const { container } = render(StageCard, { stage: stage([call()]), index: 0 });
    expect(container.querySelector('.notes')).toBeNull();
  });
});

describe('StageCard cost', () => {
  it("shows the stage's cost and each call's, free on this machine and unknown without a price", () => {
    const priced = call({
      model: 'gpt-4o',
      price: { input_per_m: 2.5, output_per_m: 10, source: 'table', as_of: '2025-08-01' },
      cost: { usd: 0.0042 },
    });
    const local = call({ model: 'llama3.2', price: { input_per_m: 0, output_per_m: 0, source: 'local' }, cost: { usd: 0 } });
    const s = stage([priced, local, call({ model: 'mystery' })]);
    s.diagnostics.cost = { usd: 0.0042, unpriced: 1 };
    const { container } = render(StageCard, { stage: s, index: 0 });
    const dd = [...container.querySelectorAll('dt')].find((d) => d.textContent === 'Cost')!.nextElementSibling!;
    expect(dd.textContent).toBe('$0.0042 +1 unpriced');
    expect([...container.querySelectorAll('.calls .cost')].map((c) => c.textContent)).toEqual(['$0.0042', 'free (local)', 'cost unknown']);
  });

  it('says cost unknown, not $0, for a stage no call of which had a price', () => {
    const { container } = render(StageCard, { stage: stage([call()]), index: 0 });
    const dd = [...container.querySelectorAll('dt')].find((d) => d.textContent === 'Cost')!.nextElementSibling!;
    expect(dd.textContent).toBe('cost unknown');
  });
});
