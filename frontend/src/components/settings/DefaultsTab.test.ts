// Settings → Defaults → Documents: the embedding model documents are
// searched by meaning with is saved with its provider; a provider without
// a model is refused with the backend's message, and "None" clears both.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { localBackend } from '../../lib/stores/testing';

async function open() {
  const b = localBackend();
  render(App, { backend: b });
  await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  const dialog = await screen.findByRole('dialog', { name: 'Settings' });
  await fireEvent.click(within(dialog).getByRole('tab', { name: 'Defaults & limits' }));
  return { b, panel: within(within(dialog).getByRole('tabpanel')) };
}

describe('Settings → Defaults → Documents', () => {
  it('saves an embedding model with its provider, refuses half of one, and clears both', async () => {
    const { b, panel } = await open();
    const provider = panel.getByLabelText('Embedding provider') as HTMLSelectElement;
    const model = panel.getByLabelText('Embedding model') as HTMLInputElement;
    expect(provider.value).toBe('');
    expect(model.disabled).toBe(true);

    await fireEvent.change(provider, { target: { value: 'ollama' } });
    await fireEvent.click(panel.getByRole('button', { name: 'Save' }));
    expect((await panel.findByRole('alert')).textContent).toContain('needs both its provider and its name');
    expect(b.settings.embed_provider).toBeUndefined();

    await fireEvent.input(model, { target: { value: ' nomic-embed-text ' } });
    await fireEvent.click(panel.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(b.settings.embed_model).toBe('nomic-embed-text'));
    expect(b.settings.embed_provider).toBe('ollama');

    await fireEvent.change(provider, { target: { value: '' } });
    await fireEvent.click(panel.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(b.settings.embed_provider).toBeUndefined());
    expect(b.settings.embed_model).toBeUndefined();
  });
});
