// The sidebar's Import with another app's file: the report says what was
// taken and what was left out, and a conversation of it opens its session.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';

// A ChatGPT export's shape (conversations.json), two conversations, one
// with an image the file does not hold.
const chatgpt = JSON.stringify([
  {
    title: 'Cats',
    mapping: {
      a: {
        parent: null,
        message: { author: { role: 'user' }, content: { parts: [{ content_type: 'image_asset_pointer' }, 'What is it?'] } },
      },
      b: { parent: 'a', message: { author: { role: 'assistant' }, content: { parts: ['A cat.'] } } },
    },
  },
  {
    title: 'Dogs',
    mapping: { c: { parent: null, message: { author: { role: 'user' }, content: { parts: ['Woof?'] } } } },
  },
]);

function backend() {
  const b = new FakeBackend();
  Object.assign(b, { uiReady: vi.fn().mockResolvedValue(undefined) });
  return b;
}

async function pick(content: string, name: string) {
  const input = document.querySelector<HTMLInputElement>('input[type=file]')!;
  Object.defineProperty(input, 'files', { value: [new File([content], name, { type: 'application/json' })], configurable: true });
  await fireEvent.change(input);
}

afterEach(() => {
  history.replaceState(null, '', '/');
  localStorage.clear();
});

describe('import from another app', () => {
  it('shows what the import took and left out, and opens a conversation from it', async () => {
    const b = backend();
    const importFile = vi.spyOn(b, 'importFile');
    render(App, { backend: b });
    await screen.findByRole('navigation', { name: 'Session list' });
    await pick(chatgpt, 'conversations.json');

    const dialog = await screen.findByRole('dialog', { name: 'Imported from ChatGPT' });
    expect(importFile).toHaveBeenCalledWith('conversations.json', chatgpt);
    expect(within(dialog).getByTestId('import-summary').textContent).toContain('2 conversations, 2 turns.');
    expect(within(dialog).getByText('Left out: 1 image not in the file')).toBeTruthy();

    await fireEvent.click(within(dialog).getByRole('button', { name: 'Dogs' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const list = screen.getByRole('navigation', { name: 'Session list' });
    expect(within(list).getByRole('button', { name: 'Cats' })).toBeTruthy();
    await waitFor(() => expect(document.querySelector('[aria-current="page"]')?.textContent).toContain('Dogs'));
  });

  it('opens our own export directly, with no report', async () => {
    const b = backend();
    render(App, { backend: b });
    await screen.findByRole('navigation', { name: 'Session list' });
    await pick(JSON.stringify({ format: 'agentdeck-session', session: { title: 'Mine' } }), 'mine.json');
    const list = screen.getByRole('navigation', { name: 'Session list' });
    expect(await within(list).findByRole('button', { name: 'Mine (imported)' })).toBeTruthy();
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
