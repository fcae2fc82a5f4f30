// A provider handed to Settings (onboarding's presets) opens its form
// once: after Cancel it stays closed, whatever reloads the provider list.
// The form's "Read tool calls written as text" is on unless turned off.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { demoBackend } from '../../lib/fake';

describe('providers tab', () => {
  it('does not reopen a draft the person cancelled when the provider list reloads', async () => {
    const backend = demoBackend({ fresh: true });
    render(App, { backend });
    const presets = await screen.findByRole('heading', { name: 'Or set up a server' });
    const first = within(presets.parentElement!).getAllByRole('button')[0]!;
    await fireEvent.click(first);
    const dialog = await screen.findByRole('dialog');
    await within(dialog).findByRole('button', { name: 'Save' });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(within(dialog).queryByRole('button', { name: 'Save' })).toBeNull());

    // Another provider is added: the list reloads.
    const add = within(dialog).getByRole('combobox', { name: 'Add a provider' }) as HTMLSelectElement;
    const kind = [...add.options].find((o) => o.value && o.value !== 'custom')!.value;
    await fireEvent.change(add, { target: { value: kind } });
    await fireEvent.click(await within(dialog).findByRole('button', { name: 'Save' }));
    await waitFor(() => expect(backend.calls.filter((c) => c.method === 'listProviders').length).toBeGreaterThan(1));
    const del = await within(dialog).findByRole('button', { name: /^Delete provider / });
    expect(within(dialog).queryByRole('button', { name: 'Save' })).toBeNull();

    // And removed again: the list reloads with nothing in it.
    const before = backend.calls.filter((c) => c.method === 'listProviders').length;
    await fireEvent.click(del);
    const confirm = await screen.findByRole('dialog', { name: 'Delete provider?' });
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(backend.calls.filter((c) => c.method === 'listProviders').length).toBeGreaterThan(before));
    await waitFor(() => expect(within(dialog).queryByRole('button', { name: /^Delete provider / })).toBeNull());
    expect(within(dialog).queryByRole('button', { name: 'Save' })).toBeNull();
  });

  it('reads tool calls written as text unless the person turns it off, and keeps the choice', async () => {
    const backend = demoBackend({ fresh: true });
    render(App, { backend });
    const presets = await screen.findByRole('heading', { name: 'Or set up a server' });
    await fireEvent.click(within(presets.parentElement!).getAllByRole('button')[0]!);
    const dialog = await screen.findByRole('dialog');
    const box = (await within(dialog).findByRole('checkbox', { name: 'Read tool calls written as text' })) as HTMLInputElement;
    expect(box.checked).toBe(true);
    const hint = document.getElementById(box.getAttribute('aria-describedby')!)!;
    expect(hint.textContent).toBe(
      'For local models without a tool-call parser: turns <tool_call>, [TOOL_CALLS] and <|python_tag|> text into real tool calls.',
    );

    await fireEvent.click(box);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(backend.providers).toHaveLength(1));
    expect(backend.providers[0]!.ignore_text_tool_calls).toBe(true);
    // The form closes once the save is through.
    await waitFor(() => expect(within(dialog).queryByRole('checkbox', { name: 'Read tool calls written as text' })).toBeNull());

    // Edited again: it shows off, and turning it on saves it on.
    await fireEvent.click(await within(dialog).findByRole('button', { name: 'Edit' }));
    const again = (await within(dialog).findByRole('checkbox', { name: 'Read tool calls written as text' })) as HTMLInputElement;
    expect(again.checked).toBe(false);
    await fireEvent.click(again);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(backend.providers[0]!.ignore_text_tool_calls).toBe(false));
  });

  it("sets a provider's prices, window and budget, and shows what applies and where it came from", async () => {
    const backend = demoBackend();
    render(App, { backend });
    await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    await fireEvent.click(await within(dialog).findByRole('button', { name: 'Edit' }));
    const facts = await within(dialog).findByTestId('model-facts');
    expect(facts.textContent).toContain('Window of llama3.2:3b: 8,192 tokens (assumed default)');
    expect(facts.textContent).toContain('free (a server on this machine)');

    const field = (name: string) => within(dialog).getByRole('spinbutton', { name }) as HTMLInputElement;
    await fireEvent.input(field('Input, $ per 1M tokens'), { target: { value: '2.5' } });
    await fireEvent.input(field('Output, $ per 1M tokens'), { target: { value: '10' } });
    await fireEvent.input(field('Context window, tokens'), { target: { value: '32000' } });
    await fireEvent.input(field('Monthly budget, $'), { target: { value: '20' } });
    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Past the budget' }), { target: { value: 'refuse' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(backend.providers[0]!.budget).toEqual({ monthly_usd: 20, over_limit: 'refuse' }));
    expect(backend.providers[0]!.prices).toEqual({ 'llama3.2:3b': { input_per_m: 2.5, output_per_m: 10, source: 'user' } });
    expect(backend.providers[0]!.windows).toEqual({ 'llama3.2:3b': 32000 });

    // Edited again: the fields show what was saved, now set by you, and
    // moving them to every model moves the entries.
    await fireEvent.click(await within(dialog).findByRole('button', { name: 'Edit' }));
    await waitFor(() => expect(within(dialog).getByTestId('model-facts').textContent).toContain('32,000 tokens (set by you)'));
    expect(within(dialog).getByTestId('model-facts').textContent).toContain('$2.50 in · $10.00 out, per 1M tokens (set by you)');
    expect(field('Input, $ per 1M tokens').value).toBe('2.5');
    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Prices and window apply to' }), { target: { value: 'all' } });
    await fireEvent.input(field('Monthly budget, $'), { target: { value: '' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(backend.providers[0]!.windows).toEqual({ '': 32000 }));
    expect(backend.providers[0]!.prices).toEqual({ '': { input_per_m: 2.5, output_per_m: 10, source: 'user' } });
    expect(backend.providers[0]!.budget).toBeUndefined();
  });
});
