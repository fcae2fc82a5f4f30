// The stage card says how a model call's answer was read when it was not a
// plain stream (a server that ignored streaming, tool calls written as
// text): the call's diagnostics notes, as text, never as an error.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import StageCard from './StageCard.svelte';
import type { CallDiagnostics, StageResult } from '../../lib/types';

const call = (over: Partial<CallDiagnostics> = {}): CallDiagnostics =>
  ({ model: 'm', ok: true, attempts: 1, usage: { input_tokens: 1, output_tokens: 1, cached_input_tokens: 0, reasoning_tokens: 0, total_tokens: 2, estimated: false }, ...over }) as CallDiagnostics;

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
    expect(items).toEqual(['Model call 2: The model wrote its tool calls as text; they were read as calls.', 'Model call 2: <b>not markup</b>']);
    expect(container.querySelector('.notes b')).toBeNull();
    expect(container.querySelector('.errors')).toBeNull();
  });

  it('shows no notes list when no call has notes', () => {
    const { container } = render(StageCard, { stage: stage([call()]), index: 0 });
    expect(container.querySelector('.notes')).toBeNull();
  });
});
