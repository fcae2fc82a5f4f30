// The totals say what evaluation runs spent of them, only when they ran.
import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/svelte';
import UsageTotals from './UsageTotals.svelte';
import type { UsageSum } from '../../lib/types';

const sum = (calls: number, cost: number): UsageSum => ({
  calls,
  input_tokens: calls * 100,
  output_tokens: calls * 10,
  cached_input_tokens: 0,
  reasoning_tokens: 0,
  cost_usd: cost,
  unpriced: 0,
  estimated: false,
});

describe('UsageTotals', () => {
  it('shows the part evaluation runs spent', () => {
    render(UsageTotals, { total: sum(10, 1.25), evaluations: sum(4, 0.5) });
    const cell = screen.getByTestId('usage-evaluations');
    expect(cell.textContent).toContain('Of which evaluations');
    expect(cell.textContent).toContain('$0.50');
    expect(cell.querySelector('strong')?.getAttribute('title')).toContain('4 calls');
  });

  it('says nothing of evaluations when none ran', () => {
    render(UsageTotals, { total: sum(10, 1.25), evaluations: sum(0, 0) });
    expect(screen.queryByTestId('usage-evaluations')).toBeNull();
  });
});
