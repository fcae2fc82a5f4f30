// Replay and Re-run through the window over the fake backend: the re-run
// goes to the chosen model's own provider, the comparison names provider
// and model on both sides, and "Open the new session" opens it.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { pickModel } from '../ui/combotest';
import { FakeBackend } from '../../lib/fake';

const errors: unknown[] = [];
const onError = (e: ErrorEvent) => errors.push(e.error ?? e.message);

afterEach(() => {
  window.removeEventListener('error', onError);
  errors.length = 0;
});

/** Two providers, each with its own model; a session on the first with one finished turn. */
async function openApp() {
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
  b.settings.default_provider = 'ollama';
  b.settings.default_model = 'llama3.2:3b';
  const s = b.addSession('Explore the regions', new Date(Date.now() - 60_000));
  b.addTurn(s.id, 'Summarise the regions and draw a chart');
  window.addEventListener('error', onError);
  render(App, { backend: b });
  await waitFor(() => expect(b.calls.some((c) => c.method === 'uiReady')).toBe(true));
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Explore the regions' }));
  const turn = await screen.findByRole('article', { name: 'Turn 1' });
  await within(turn).findByRole('button', { name: /Replay/ });
  return { b, turn };
}

/** A side of the comparison as "term: value" lines. */
function sideOf(dialog: HTMLElement, title: string): Record<string, string> {
  const side = within(dialog).getByRole('region', { name: title });
  const out: Record<string, string> = {};
  for (const dt of side.querySelectorAll('dt')) out[dt.textContent!.trim()] = dt.nextElementSibling!.textContent!.trim();
  return out;
}

describe('compare', () => {
  it("re-runs on the chosen model's own provider and names provider and model on both sides", async () => {
    const { b, turn } = await openApp();
    await fireEvent.click(within(turn).getByRole('button', { name: /Re-run with/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Re-run with…' });
    const picker = within(dialog).getByRole('combobox', { name: 'Model' });
    await pickModel(picker, 'studio', 'qwen-studio');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Re-run' }));

    const cmp = await screen.findByRole('dialog', { name: /^Re-run:/ });
    const call = b.calls.find((c) => c.method === 'rerunTurn');
    expect(call?.args[1]).toMatchObject({ provider: 'studio', model: 'qwen-studio' });
    const copy = b.sessions.find((s) => s.title.startsWith('Re-run of'));
    expect(copy).toMatchObject({ provider: 'studio', model: 'qwen-studio' });
    await waitFor(() => expect(sideOf(cmp, 'Original')).toMatchObject({ Provider: 'ollama', Model: 'llama3.2:3b' }));
    await waitFor(() => expect(sideOf(cmp, 'Re-run')).toMatchObject({ Provider: 'studio', Model: 'qwen-studio' }));
  });

  it.each(['Replay', 'Re-run'])('opens the new session after a %s', async (kind) => {
    const { b, turn } = await openApp();
    if (kind === 'Replay') {
      await fireEvent.click(within(turn).getByRole('button', { name: /Replay/ }));
    } else {
      await fireEvent.click(within(turn).getByRole('button', { name: /Re-run with/ }));
      await fireEvent.click(within(await screen.findByRole('dialog', { name: 'Re-run with…' })).getByRole('button', { name: 'Re-run' }));
    }
    const cmp = await screen.findByRole('dialog', { name: new RegExp(`^${kind}:`) });
    await fireEvent.click(within(cmp).getByRole('button', { name: 'Open the new session' }));
    const copy = b.sessions.find((s) => s.title.startsWith(`${kind} of`))!;
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe(copy.title));
    expect(screen.queryByRole('dialog', { name: new RegExp(`^${kind}:`) })).toBeNull();
    expect(errors).toEqual([]);
  });
});
