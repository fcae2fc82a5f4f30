// A session made by `agentdeck run --base-url` names a model but no
// provider (the URL was a flag, stored nowhere). The composer offers the
// saved providers for it, starting at the default one, and sending works.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import { listOf, pickModel } from '../ui/combotest';

async function openCLISession(defaultProvider: string) {
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
    },
    {
      name: 'studio',
      kind: 'lmstudio',
      base_url: 'http://127.0.0.1:1234/v1',
      local: true,
      needs_key: false,
      models: ['qwen-studio'],
      has_key: false,
      masked_key: '',
    },
  ];
  b.settings.default_provider = defaultProvider;
  b.settings.default_model = defaultProvider ? 'llama3.2:3b' : '';
  const s = b.addSession('From the terminal', new Date(Date.now() - 60_000));
  Object.assign(s, { provider: '', model: 'cli-model' });
  b.addTurn(s.id, 'Summarise the regions');
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'From the terminal' }));
  await screen.findByRole('article', { name: 'Turn 1' });
  const composer = screen.getByRole('form', { name: 'Message' });
  const picker = within(composer).getByRole('combobox', { name: 'Model' }) as HTMLInputElement;
  await fireEvent.click(picker);
  await waitFor(() =>
    expect(
      within(listOf(picker))
        .getAllByRole('group')
        .map((g) => g.getAttribute('aria-label')),
    ).toEqual(['ollama', 'studio']),
  );
  await fireEvent.keyDown(picker, { key: 'Escape' });
  return { b, s, composer, picker };
}

async function send(composer: HTMLElement, text: string) {
  await fireEvent.input(within(composer).getByRole('textbox', { name: 'Message' }), { target: { value: text } });
  await fireEvent.click(within(composer).getByRole('button', { name: 'Send' }));
}

describe('composer, in a session made by the CLI', () => {
  it('starts at the default provider, keeps the model, and sends there', async () => {
    const { s, composer, picker } = await openCLISession('ollama');
    await waitFor(() => expect(picker.value).toBe('cli-model'));
    expect(picker.dataset.provider).toBe('ollama');
    await send(composer, 'And the next step?');
    const turn = await screen.findByRole('article', { name: 'Turn 2' });
    await waitFor(() => expect(within(turn).getByRole('button', { name: /Replay/ })).toBeTruthy());
    expect(s.provider).toBe('ollama');
    await waitFor(() => expect(document.querySelector('.main .meta')?.textContent).toBe('ollama · cli-model'));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('with no default provider, offers the saved ones and sends once one is picked', async () => {
    const { s, composer, picker } = await openCLISession('');
    expect(picker.value).toBe('');
    expect(picker.placeholder).toBe('Choose or type a model');
    await pickModel(picker, 'studio', 'qwen-studio');
    await waitFor(() => expect(s).toMatchObject({ provider: 'studio', model: 'qwen-studio' }));
    await send(composer, 'And the next step?');
    const turn = await screen.findByRole('article', { name: 'Turn 2' });
    await waitFor(() => expect(within(turn).getByRole('button', { name: /Replay/ })).toBeTruthy());
  });
});

describe('composer, the budget line', () => {
  it('follows a budget saved in Settings at once, with nothing typed and no reload', async () => {
    const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
    b.providers = [
      {
        name: 'paid',
        kind: 'openai',
        base_url: 'https://example.invalid/v1',
        local: false,
        needs_key: false,
        models: ['m'],
        has_key: false,
        masked_key: '',
        budget: { monthly_usd: 100, over_limit: 'ask' },
      },
    ];
    b.settings.default_provider = 'paid';
    b.settings.default_model = 'm';
    b.spent.set('paid', 0.05);
    const s = b.addSession('Spending', new Date(Date.now() - 60_000));
    Object.assign(s, { provider: 'paid', model: 'm' });
    b.addTurn(s.id, 'What did it cost?');
    render(App, { backend: b });
    const nav = await screen.findByRole('navigation', { name: 'Session list' });
    await fireEvent.click(await within(nav).findByRole('button', { name: 'Spending' }));
    await screen.findByTestId('context-meter');
    expect(screen.queryByTestId('budget-warning')).toBeNull();

    await fireEvent.click(screen.getByRole('button', { name: 'Settings' }));
    const settings = await screen.findByRole('dialog', { name: 'Settings' });
    const row = within(settings)
      .getAllByRole('listitem')
      .find((li) => li.textContent?.includes('paid'))!;
    await fireEvent.click(within(row).getByRole('button', { name: 'Edit' }));
    await fireEvent.input(await within(settings).findByLabelText('Monthly budget, $'), { target: { value: '0.01' } });
    await fireEvent.click(within(settings).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(within(settings).queryByLabelText('Monthly budget, $')).toBeNull());

    await waitFor(() => expect(screen.getByTestId('budget-warning').textContent).toContain("This month's budget for paid is spent"));
  });
});
