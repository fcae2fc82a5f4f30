// Lazy: a part that loads shows; one whose chunk does not load says what
// to do, and "Try again" loads it again, not the failure a second time.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import type { Component } from 'svelte';
import Lazy from './Lazy.svelte';
import Icon from './ui/Icon.svelte';

describe('Lazy', () => {
  it('says a part that did not load, and loads it when asked again', async () => {
    let calls = 0;
    const load = async () => {
      calls++;
      if (calls === 1) throw new TypeError('Failed to fetch dynamically imported module: /assets/UsagePage-x.js');
      return { default: Icon as unknown as Component<Record<string, unknown>> };
    };
    const { container } = render(Lazy, { props: { load, props: { name: 'chart' } } });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toMatch(/could not load\. Try again; if it fails again, reload the window/);
    expect(alert.textContent).toContain('UsagePage-x.js');
    expect(container.querySelector('svg')).toBeNull();

    await fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await expect.poll(() => container.querySelector('svg')).not.toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
    expect(calls).toBe(2);
  });
});
