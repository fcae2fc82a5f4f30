// The Usage page: reached from the sidebar and by its address, it shows
// the span's totals, draws the Go side's four charts with the agent's
// chart renderer, lists the groups and the costliest turns (each opening
// where it was, its text shown as text), exports CSV, and says so when
// there is nothing to show.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';

afterEach(() => {
  window.location.hash = '';
});

function seeded() {
  const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
  b.providers = [
    {
      name: 'openai',
      kind: 'openai',
      base_url: 'https://api.openai.com/v1',
      local: false,
      needs_key: true,
      models: ['gpt-4o'],
      has_key: true,
      masked_key: '••••abcd',
      prices: { '': { input_per_m: 2.5, output_per_m: 10, source: 'user' } },
    },
    {
      name: 'ollama',
      kind: 'ollama',
      base_url: 'http://127.0.0.1:11434/v1',
      local: true,
      needs_key: false,
      models: ['llama3.2:3b'],
      has_key: false,
      masked_key: '',
    },
  ];
  b.settings.default_provider = 'openai';
  b.settings.default_model = 'gpt-4o';
  const s = b.addSession('<img src=x onerror=alert(1)> Sales', new Date());
  b.addTurn(s.id, 'Chart the <b>growth</b> by region');
  b.addTurn(s.id, 'And the costs?');
  return { b, s };
}

async function openUsage() {
  await fireEvent.click(await screen.findByRole('button', { name: 'Usage and cost' }));
  return screen.findByTestId('usage-page');
}

describe('Usage page', () => {
  it('shows totals, the four charts, the groups and the costliest turns', async () => {
    const { b } = seeded();
    render(App, { backend: b });
    const page = await openUsage();
    expect(window.location.hash).toBe('#/usage');
    expect(screen.getByRole('button', { name: 'Usage and cost' }).getAttribute('aria-current')).toBe('page');
    const totals = await within(page).findByRole('region', { name: 'Totals' });
    expect(totals.textContent).toContain('Model calls2');
    expect(totals.textContent).toMatch(/Cost\$0\.\d{4}/);
    // Drawn by the agent's chart renderer: vega's SVG, bars and an arc.
    for (const [id, mark] of [
      ['tokens', 'rect'],
      ['cost', 'rect'],
      ['groups', 'rect'],
      ['cached', 'arc'],
    ]) {
      const chart = within(page).getByTestId(`usage-chart-${id}`);
      await waitFor(() => expect(chart.querySelector(`svg.marks g.mark-${mark} path`)).toBeTruthy());
    }
    const rows = within(page).getByTestId('usage-rows');
    expect(within(rows).getByRole('rowheader', { name: 'gpt-4o' })).toBeTruthy();

    const top = within(page).getByTestId('usage-top-turns');
    const links = within(top).getAllByRole('link');
    expect(links).toHaveLength(2);
    // The person's text, as text.
    expect(top.querySelector('img, b')).toBeNull();
    expect(top.textContent).toContain('<b>growth</b>');
    expect(top.textContent).toContain('<img src=x onerror=alert(1)> Sales');
  });

  it('opens a costly turn where it was', async () => {
    const { b, s } = seeded();
    render(App, { backend: b });
    const page = await openUsage();
    const top = await within(page).findByTestId('usage-top-turns');
    const link = within(top)
      .getAllByRole('link')
      .find((a) => a.textContent?.includes('And the costs?'))!;
    const turn = [...b.turns.values()].find((t) => t.user_message === 'And the costs?')!;
    expect(link.getAttribute('href')).toBe(`#/s/${s.id}/t/${turn.id}`);
    await fireEvent.click(link);
    await waitFor(() => expect(screen.queryByTestId('usage-page')).toBeNull());
    await screen.findByRole('article', { name: 'Turn 2' });
    expect(window.location.hash).toBe(`#/s/${s.id}/t/${turn.id}`);
  });

  it('asks again for another span and grouping, and exports the same as CSV', async () => {
    const { b } = seeded();
    render(App, { backend: b });
    const page = await openUsage();
    await within(page).findByRole('region', { name: 'Totals' });
    await fireEvent.click(within(page).getByRole('button', { name: '7 d' }));
    await waitFor(() => expect(within(page).getByRole('button', { name: '7 d' }).getAttribute('aria-pressed')).toBe('true'));
    await fireEvent.change(within(page).getByRole('combobox', { name: 'Group by' }), { target: { value: 'provider' } });
    await waitFor(() => expect(within(page).getByRole('rowheader', { name: 'openai' })).toBeTruthy());
    const last = b.calls.filter((c) => c.method === 'usage').at(-1)!.args[0] as { since: string; until: string; by: string };
    expect(last.by).toBe('provider');
    expect(Date.parse(last.until) - Date.parse(last.since)).toBe(6 * 86_400_000);

    const clicks: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicks.push(this.download);
    });
    await fireEvent.click(within(page).getByTestId('usage-export-csv'));
    await waitFor(() => expect(clicks).toHaveLength(1));
    click.mockRestore();
    expect(clicks[0]).toMatch(/^agentdeck-usage-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}-by-provider\.csv$/);
    const csv = await b.usageCSV(last);
    expect(csv.content.split('\n')[0]).toBe(
      'provider,calls,input_tokens,output_tokens,cached_input_tokens,reasoning_tokens,cost_usd,unpriced_calls,estimated',
    );
  });

  it('says so when no model was called in the span, and draws nothing', async () => {
    const b = new FakeBackend();
    b.providers = seeded().b.providers;
    window.location.hash = '#/usage';
    render(App, { backend: b });
    const page = await screen.findByTestId('usage-page');
    expect((await within(page).findByTestId('usage-empty')).textContent).toContain('No model calls from');
    expect(within(page).queryByTestId('usage-chart-tokens')).toBeNull();
    expect(page.querySelector('svg.marks')).toBeNull();
  });

  it('says why when the span cannot be read', async () => {
    const { b } = seeded();
    render(App, { backend: b });
    const page = await openUsage();
    await fireEvent.input(within(page).getByLabelText('From'), { target: { value: '2030-01-01' } });
    expect((await within(page).findByRole('alert')).textContent).toContain('before it starts');
  });
});
