// A model the server does not list can be chosen (issue 40): many servers
// list some models or none (gateways, proxies, Azure deployments), so the
// pickers take any name typed, with the listed models as suggestions, and
// a provider's saved default shows as chosen, listed or not.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import type { SendRequest } from '../../lib/types';
import { listOf, optionsOf, pickModel, typeModel } from '../ui/combotest';

afterEach(() => localStorage.clear());

// "gateway" lists two models (the fake's testProvider for a remote
// server); its saved default, "my-deployment", is not among them.
function backend(over: { defaultModel?: string } = {}) {
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
      name: 'gateway',
      kind: 'custom',
      base_url: 'https://gw.example/v1',
      local: false,
      needs_key: false,
      models: [],
      default_model: 'my-deployment',
      has_key: false,
      masked_key: '',
    },
  ];
  b.settings.default_provider = 'ollama';
  b.settings.default_model = over.defaultModel ?? 'llama3.2:3b';
  return b;
}

const composer = () => screen.getByRole('form', { name: 'Message' });
const picker = () => within(composer()).getByRole('combobox', { name: 'Model' }) as HTMLInputElement;

async function send(text: string) {
  await fireEvent.input(within(composer()).getByRole('textbox', { name: 'Message' }), { target: { value: text } });
  await fireEvent.click(within(composer()).getByRole('button', { name: 'Send' }));
}

const sent = (b: FakeBackend) => b.calls.filter((c) => c.method === 'sendMessage').map((c) => c.args[0] as SendRequest);

describe('the model picker', () => {
  it('sends with a name typed that no server lists', async () => {
    const b = backend();
    render(App, { backend: b });
    await waitFor(() => expect(picker().value).toBe('llama3.2:3b'));
    await typeModel(picker(), 'unlisted-model-7');
    expect(picker().value).toBe('unlisted-model-7');
    expect(picker().dataset.provider).toBe('ollama');
    await send('hello');
    await screen.findByRole('article', { name: 'Turn 1' });
    expect(sent(b).at(-1)?.model).toBe('unlisted-model-7');
    expect(b.sessions[0]).toMatchObject({ provider: 'ollama', model: 'unlisted-model-7' });
  });

  it('offers the listed models and the saved default as suggestions, and "Use" for a name typed', async () => {
    render(App, { backend: backend() });
    await waitFor(() => expect(picker().value).toBe('llama3.2:3b'));
    await fireEvent.click(picker());
    await waitFor(() =>
      expect(optionsOf(picker())).toEqual(['ollama/llama3.2:3b', 'gateway/my-deployment', 'gateway/gpt-4o-mini', 'gateway/gpt-4.1']),
    );
    expect(within(listOf(picker())).getByRole('group', { name: 'gateway' }).textContent).toContain('my-deployment · default');

    await fireEvent.input(picker(), { target: { value: 'gpt' } });
    expect(optionsOf(picker())).toEqual(['use:gpt', 'gateway/gpt-4o-mini', 'gateway/gpt-4.1']);
    expect(listOf(picker()).querySelector('[role="option"]')!.textContent!.trim()).toBe('Use “gpt” on ollama');
  });

  it('works from the keyboard: Down opens and moves, Enter picks, Escape closes then puts back', async () => {
    render(App, { backend: backend() });
    await waitFor(() => expect(picker().value).toBe('llama3.2:3b'));
    const box = picker();
    box.focus();
    expect(box.getAttribute('aria-expanded')).toBe('false');
    await fireEvent.keyDown(box, { key: 'ArrowDown' });
    expect(box.getAttribute('aria-expanded')).toBe('true');
    const active = () => document.getElementById(box.getAttribute('aria-activedescendant') ?? '')?.querySelector('.name')?.textContent;
    await waitFor(() => expect(active()).toBe('llama3.2:3b'));
    await fireEvent.keyDown(box, { key: 'ArrowDown' });
    expect(active()).toBe('my-deployment');
    await fireEvent.keyDown(box, { key: 'ArrowUp' });
    await fireEvent.keyDown(box, { key: 'ArrowUp' });
    expect(active()).toBe('gpt-4.1');
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(box.getAttribute('aria-expanded')).toBe('false');
    await waitFor(() => expect(box.value).toBe('gpt-4.1'));
    expect(box.dataset.provider).toBe('gateway');

    await fireEvent.input(box, { target: { value: 'half-typed' } });
    await fireEvent.keyDown(box, { key: 'Escape' });
    expect(box.getAttribute('aria-expanded')).toBe('false');
    expect(box.value).toBe('half-typed');
    await fireEvent.keyDown(box, { key: 'Escape' });
    expect(box.value).toBe('gpt-4.1');
    // Enter in the picker never sends the message.
    await fireEvent.keyDown(box, { key: 'Enter' });
    expect(screen.queryByRole('article')).toBeNull();
  });

  it("shows a provider's saved default as chosen when no default model is set, and sends with it", async () => {
    const b = backend({ defaultModel: '' });
    b.settings.default_provider = 'gateway';
    render(App, { backend: b });
    await waitFor(() => expect(picker().value).toBe('my-deployment'));
    expect(picker().dataset.provider).toBe('gateway');
    await send('hello');
    await screen.findByRole('article', { name: 'Turn 1' });
    expect(sent(b).at(-1)?.model).toBe('my-deployment');
  });

  it('Settings → Defaults shows the saved default as chosen and saves a name typed', async () => {
    const b = backend({ defaultModel: '' });
    b.settings.default_provider = 'gateway';
    render(App, { backend: b });
    await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    await fireEvent.click(within(dialog).getByRole('tab', { name: 'Defaults & limits' }));
    const box = (await within(dialog).findByRole('combobox', { name: 'Model' })) as HTMLInputElement;
    expect(box.value).toBe('my-deployment');
    expect(box.dataset.provider).toBe('gateway');
    await typeModel(box, 'eu-deployment-2');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(b.settings).toMatchObject({ default_provider: 'gateway', default_model: 'eu-deployment-2' }));
  });

  it("Re-run with… runs on a name typed, and a provider's default model keeps a name the server does not list", async () => {
    const b = backend();
    const s = b.addSession('Capitals', new Date(Date.now() - 60_000));
    Object.assign(s, { provider: 'ollama', model: 'llama3.2:3b' });
    b.addTurn(s.id, 'Capital of France?');
    render(App, { backend: b });
    const nav = await screen.findByRole('navigation', { name: 'Session list' });
    await fireEvent.click(await within(nav).findByRole('button', { name: 'Capitals' }));
    const turn = await screen.findByRole('article', { name: 'Turn 1' });
    await fireEvent.click(await within(turn).findByRole('button', { name: /Re-run with/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Re-run with…' });
    const box = within(dialog).getByRole('combobox', { name: 'Model' });
    await fireEvent.input(box, { target: { value: 'gateway/brand-new' } });
    expect(optionsOf(box)).toEqual(['use:gateway/brand-new', 'use:brand-new']);
    const use = [...listOf(box).querySelectorAll('[role="option"]')].find((o) => o.textContent!.trim() === 'Use “brand-new” on gateway');
    expect(use, [...listOf(box).querySelectorAll('[role="option"]')].map((o) => o.textContent).join('|')).toBeTruthy();
    await fireEvent.click(use!);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Re-run' }));
    await waitFor(() =>
      expect(b.calls.find((c) => c.method === 'rerunTurn')?.args[1]).toMatchObject({ provider: 'gateway', model: 'brand-new' }),
    );
  });

  it('a provider form keeps a default model the server does not list', async () => {
    const b = backend();
    render(App, { backend: b });
    await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    await fireEvent.click(within(dialog).getByRole('tab', { name: 'Providers' }));
    const card = (await within(dialog).findByText('gateway', { selector: 'strong' })).closest('li')!;
    await fireEvent.click(within(card).getByRole('button', { name: 'Edit' }));
    const box = (await within(dialog).findByRole('combobox', { name: 'Default model' })) as HTMLInputElement;
    expect(box.value).toBe('my-deployment');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Test connection' }));
    await within(dialog).findByText(/Connected\. 2 models/);
    expect(box.value).toBe('my-deployment');
    await pickModel(box, 'gateway', 'gpt-4.1');
    await typeModel(box, 'my-other-deployment');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(b.providers.find((p) => p.name === 'gateway')?.default_model).toBe('my-other-deployment'));
  });
});
