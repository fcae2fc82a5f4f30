// The diagnostics panel's settings: the instructions collapsed to their
// first line, each sampling value with the layer it came from, and an
// agent's workflow-file value marked as the workflow's.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import TurnSettings from './TurnSettings.svelte';
import type { TurnSettings as Settings } from '../../lib/stores/turns.svelte';

const settings: Settings = {
  resolved: {
    settings: { instructions: 'Answer in French.\nCite sources.', temperature: 0.7, seed: 7, stop: ['END'], max_tokens: 100 },
    from: { instructions: 'project', temperature: 'turn', seed: 'project', stop: 'session', max_tokens: 'app' },
  },
  agents: {
    critic: { sampling: { temperature: 0.2 }, instructions: false },
    writer: { sampling: {}, instructions: true },
  },
};

describe('TurnSettings', () => {
  it('shows each setting with where it came from', () => {
    const { container } = render(TurnSettings, { settings });
    const summary = container.querySelector('summary')!;
    expect(summary.textContent).toContain('Answer in French. …');
    expect(summary.textContent).toContain('project');
    expect(container.querySelector('details')!.open).toBe(false);
    const rows = [...container.querySelectorAll('tr')].map((tr) => [...tr.children].map((c) => c.textContent?.trim()));
    expect(rows).toEqual([
      ['Temperature', '0.7', 'turn'],
      ['Max tokens', '100', 'app'],
      ['Seed', '7', 'project'],
      ['Stop', '"END"', 'session'],
      ['Temperature · critic', '0.2', 'workflow'],
    ]);
    expect(container.textContent).toContain('Given to: writer');
  });

  it('says when nothing was set', () => {
    const { container } = render(TurnSettings, { settings: { resolved: { settings: {}, from: {} }, agents: {} } });
    expect(container.textContent).toContain("the model's defaults applied");
  });
});
