// The composer's context meter: it grows with the draft, says near and
// over in words as well as colour, breaks the count down on request, and
// warns before sending; the provider's budget is shown where it stands,
// and a send past a spent budget goes only with the person's consent (or
// not at all where the budget refuses).
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import type { Budget } from '../../lib/types';

async function openSession(opts: { window?: number; budget?: Budget; spent?: number } = {}) {
  const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
  b.providers = [
    {
      name: 'ollama',
      kind: 'ollama',
      base_url: 'http://127.0.0.1:11434/v1',
      local: true,
      needs_key: false,
      models: ['llama3.2:3b'],
      has_key: false,
      masked_key: '',
      ...(opts.window ? { windows: { 'llama3.2:3b': opts.window } } : {}),
      ...(opts.budget ? { budget: opts.budget } : {}),
    },
  ];
  if (opts.spent) b.spent.set('ollama', opts.spent);
  b.settings.default_provider = 'ollama';
  b.settings.default_model = 'llama3.2:3b';
  const s = b.addSession('Regions', new Date(Date.now() - 60_000));
  b.addTurn(s.id, 'Summarise the regions');
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Regions' }));
  await screen.findByRole('article', { name: 'Turn 1' });
  const composer = screen.getByRole('form', { name: 'Message' });
  const meter = await within(composer).findByTestId('context-meter');
  return { b, s, composer, meter };
}

const totalOf = (meter: HTMLElement) => Number(within(meter).getByRole('meter').dataset.total);

async function type(composer: HTMLElement, text: string) {
  await fireEvent.input(within(composer).getByRole('textbox', { name: 'Message' }), { target: { value: text } });
}

describe('context meter', () => {
  it('grows as the draft grows, and warns near and over the window in words', async () => {
    const { composer, meter } = await openSession({ window: 4000 });
    const empty = totalOf(meter);
    expect(empty).toBeGreaterThan(0);
    expect(empty).toBeLessThan(3200);
    const bar = within(meter).getByRole('meter', { name: 'Context of the next message' });
    expect(bar.getAttribute('aria-valuemax')).toBe('4000');
    expect(within(composer).queryByTestId('context-warning')).toBeNull();

    await type(composer, 'x'.repeat(100));
    await waitFor(() => expect(totalOf(meter)).toBe(empty + 29));

    // The fake counts four characters a token: past 80% of the window, then past all of it.
    await type(composer, 'x'.repeat(4 * (3300 - empty)));
    await waitFor(() => expect(meter.dataset.state).toBe('near'));
    expect(meter.textContent).toContain('near the limit');
    const near = within(composer).getByTestId('context-warning');
    expect(near.textContent).toContain('Near the window');
    expect(within(near).getByRole('button', { name: 'New session' })).toBeTruthy();

    await type(composer, 'x'.repeat(4 * (4100 - empty)));
    await waitFor(() => expect(meter.dataset.state).toBe('over'));
    expect(meter.textContent).toContain('over the window');
    expect(bar.getAttribute('aria-valuenow')).toBe('4000');
    expect(bar.getAttribute('aria-valuetext')).toMatch(/of 4,000 tokens \(\d+%\), over the window$/);
    expect(within(composer).getByTestId('context-warning').textContent).toContain('Over the window');
  });

  it('breaks the count down by part, with the window and how it was counted', async () => {
    const { composer, meter } = await openSession({ window: 1000 });
    await type(composer, 'hello');
    const button = within(meter).getByRole('button', { name: /tokens/ });
    expect(button.getAttribute('aria-expanded')).toBe('false');
    await fireEvent.click(button);
    const details = within(meter).getByRole('group', { name: 'What the next message would send' });
    const rows = [...details.querySelectorAll('tbody th')].map((th) => th.textContent);
    expect(rows).toEqual(['System prompt', 'Tool definitions', 'Conversation (2 messages)', 'Images', 'This message']);
    expect(details.textContent).toContain('1,000 tokens, set by you');
    expect(details.textContent).toContain('estimated');
    expect(details.textContent).toContain('free (a server on this machine)');
    await fireEvent.keyDown(button, { key: 'Escape' });
    expect(within(meter).queryByRole('group')).toBeNull();
  });

  it('shows no meter for a new session until it is saved', async () => {
    const { composer } = await openSession();
    await fireEvent.click(screen.getByRole('button', { name: /New session/ }));
    await waitFor(() => expect(within(composer).queryByTestId('context-meter')).toBeNull());
  });
});

describe('budget', () => {
  it("says how much of this month's budget is spent past 80%", async () => {
    const { composer } = await openSession({ budget: { monthly_usd: 10, over_limit: 'ask' }, spent: 8.2 });
    const warning = await within(composer).findByTestId('budget-warning');
    expect(warning.textContent).toContain("82% of this month's budget for ollama is spent ($8.20 of $10).");
  });

  it('asks before sending past a spent budget, and sends only when the person agrees', async () => {
    const { b, composer } = await openSession({ budget: { monthly_usd: 10, over_limit: 'ask' }, spent: 12 });
    const warning = await within(composer).findByTestId('budget-warning');
    expect(warning.textContent).toContain(
      "This month's budget for ollama is spent ($12.00 of $10). Sending will ask before going over it.",
    );
    await type(composer, 'And the next step?');
    await fireEvent.click(within(composer).getByRole('button', { name: 'Send' }));
    const dialog = await screen.findByRole('dialog', { name: "This month's budget is spent" });
    expect(within(dialog).getByTestId('over-budget-message').textContent).toContain('Send again to go over it');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Send anyway' }));
    await screen.findByRole('article', { name: 'Turn 2' });
    const sends = b.calls.filter((c) => c.method === 'sendMessage').map((c) => (c.args[0] as { over_budget?: boolean }).over_budget);
    expect(sends).toEqual([undefined, true]);
  });

  it('keeps the message when the person cancels', async () => {
    const { composer } = await openSession({ budget: { monthly_usd: 10 }, spent: 12 });
    await type(composer, 'Not now');
    await fireEvent.click(within(composer).getByRole('button', { name: 'Send' }));
    const dialog = await screen.findByRole('dialog', { name: "This month's budget is spent" });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect((within(composer).getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement).value).toBe('Not now');
    expect(screen.queryByRole('article', { name: 'Turn 2' })).toBeNull();
  });

  it('offers only Settings where the budget refuses', async () => {
    const { composer } = await openSession({ budget: { monthly_usd: 10, over_limit: 'refuse' }, spent: 12 });
    expect((await within(composer).findByTestId('budget-warning')).textContent).toContain('Raise it in Settings to send more this month.');
    await type(composer, 'And the next step?');
    await fireEvent.click(within(composer).getByRole('button', { name: 'Send' }));
    const dialog = await screen.findByRole('dialog', { name: "This month's budget is spent" });
    expect(within(dialog).queryByRole('button', { name: 'Send anyway' })).toBeNull();
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Open Settings' }));
    const settings = await screen.findByRole('dialog', { name: 'Settings' });
    expect(within(settings).getByRole('spinbutton', { name: 'Monthly budget, $' })).toHaveProperty('value', '10');
  });
});
