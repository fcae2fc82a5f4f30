// A layer of settings as the window edits it: the checks say what
// turn.RunSettings.Validate says (its words, field by field), layers
// stack as turn.Resolve stacks them ("" instructions included), a saved
// layer leaves out what it does not set, and the header's summary.
import { describe, expect, it } from 'vitest';
import { appLayer, cleanLayer, originOf, problemsOf, resolveLayers, summary } from './runsettings';
import { defaultSettings } from './stores/settings.svelte';
import type { RunSettings } from './types';

const limits = (max_steps: number) => ({
  max_steps,
  max_tool_calls: 0,
  token_budget: 0,
  timeout: 0,
  stall_threshold: 0,
  max_tool_output: 0,
});

describe('problemsOf', () => {
  const cases: Array<[string, RunSettings, Record<string, string>]> = [
    ['nothing set', {}, {}],
    ['all in range', { temperature: 2, top_p: 1, max_tokens: 1, seed: -3, stop: ['a', 'b', 'c', 'd'], reasoning_effort: 'high' }, {}],
    ['temperature above 2', { temperature: 2.5 }, { temperature: 'temperature must be between 0 and 2 (got 2.5)' }],
    ['temperature below 0', { temperature: -1 }, { temperature: 'temperature must be between 0 and 2 (got -1)' }],
    ['top-p 0', { top_p: 0 }, { top_p: 'top-p must be above 0 and at most 1 (got 0)' }],
    ['top-p above 1', { top_p: 1.5 }, { top_p: 'top-p must be above 0 and at most 1 (got 1.5)' }],
    ['max tokens 0', { max_tokens: 0 }, { max_tokens: 'max output tokens must be at least 1 (got 0)' }],
    ['max tokens a fraction', { max_tokens: 1.5 }, { max_tokens: 'max output tokens must be a whole number (got 1.5)' }],
    ['seed a fraction', { seed: 0.5 }, { seed: 'the seed must be a whole number (got 0.5)' }],
    ['five stops', { stop: ['a', 'b', 'c', 'd', 'e'] }, { stop: 'at most 4 stop sequences (got 5)' }],
    ['an empty stop', { stop: ['a', ''] }, { stop: 'a stop sequence cannot be empty' }],
    ['an unknown effort', { reasoning_effort: 'max' }, { reasoning_effort: 'reasoning effort must be low, medium or high (got "max")' }],
    ['a negative limit', { limits: limits(-1) }, { limits: 'limits cannot be negative' }],
    ['a negative code limit', { limits: { ...limits(0), code_memory_mb: -1 } }, { limits: 'limits cannot be negative' }],
  ];
  for (const [name, s, want] of cases) it(name, () => expect(problemsOf(s)).toEqual(want));
});

describe('resolveLayers', () => {
  it('stacks layers, a later one wins, and names where each value came from', () => {
    const r = resolveLayers([
      { name: 'app', settings: { temperature: 0.7, instructions: 'app', limits: limits(5) } },
      { name: 'project', settings: { instructions: 'project', stop: ['END'] } },
      { name: 'session', settings: { temperature: 0.2 } },
    ]);
    expect(r.settings).toMatchObject({ temperature: 0.2, instructions: 'project', stop: ['END'] });
    expect(r.settings.limits?.max_steps).toBe(5);
    expect(r.from).toEqual({ temperature: 'session', instructions: 'project', stop: 'project', 'limits.max_steps': 'app' });
  });

  it('takes "" instructions as "none" over a lower layer\'s', () => {
    const r = resolveLayers([
      { name: 'project', settings: { instructions: 'be brief' } },
      { name: 'session', settings: { instructions: '' } },
    ]);
    expect(r.settings.instructions).toBe('');
    expect(r.from?.instructions).toBe('session');
  });
});

describe('appLayer', () => {
  it('puts the default provider, model, workflow and limits over the defaults', () => {
    const st = { ...defaultSettings(), default_provider: 'ollama', default_model: 'm1', limits: limits(9), defaults: { top_p: 0.5 } };
    expect(appLayer(st)).toEqual({ top_p: 0.5, provider: 'ollama', model: 'm1', workflow: 'chat', limits: limits(9) });
  });
});

describe('cleanLayer', () => {
  it('leaves out what is not set, keeps "" instructions, drops limits that set nothing', () => {
    const s: RunSettings = { instructions: '', temperature: undefined, stop: [], reasoning_effort: '', seed: 0, limits: limits(0) };
    expect(cleanLayer(s)).toEqual({ instructions: '', seed: 0 });
  });
});

describe('originOf and summary', () => {
  const inherited = { settings: {}, from: { temperature: 'project', top_p: 'app' } };
  const labels = { app: 'app defaults', project: 'project Research' };
  it('says where a value comes from', () => {
    expect(originOf('temperature', true, inherited, labels)).toBe('set here');
    expect(originOf('temperature', false, inherited, labels)).toBe('from project Research');
    expect(originOf('top_p', false, inherited, labels)).toBe('from app defaults');
    expect(originOf('seed', false, inherited, labels)).toBe('');
  });
  it('sums up what a session sets of its own', () => {
    expect(summary({})).toBe('');
    expect(summary({ instructions: 'x', temperature: 0.3 })).toBe('Instructions · T 0.3');
    expect(summary({ instructions: '', seed: 7, stop: ['a'], reasoning_effort: 'low' })).toBe(
      'No instructions · seed 7 · 1 stop · effort low',
    );
  });
});
