// Images through the window over the fake backend: paste two into the
// composer, see their thumbnails, remove one, send, see the other in the
// turn and open it full size; after the session is opened again it is
// fetched by its stored id. Over 20 MB in all asks first; an image-only
// message sends; one that is no image says why.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { FakeBackend } from '../lib/fake';
import type { SendRequest } from '../lib/types';
import { pickModel } from './ui/combotest';
import { decodePNGHead, pngBytes, pngFile } from '../lib/stores/testing';

const errors: unknown[] = [];
const onError = (e: ErrorEvent) => errors.push(e.error ?? e.message);

beforeEach(() => vi.stubGlobal('createImageBitmap', decodePNGHead));
afterEach(() => {
  window.removeEventListener('error', onError);
  vi.unstubAllGlobals();
  expect(errors).toEqual([]);
  errors.length = 0;
});

async function openApp(models = ['llama3.2:3b']) {
  const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
  b.providers = [
    {
      name: 'ollama',
      kind: 'ollama',
      base_url: 'http://127.0.0.1:11434/v1',
      local: true,
      needs_key: false,
      models,
      has_key: false,
      masked_key: '',
    },
  ];
  b.settings.default_provider = 'ollama';
  b.settings.default_model = 'llama3.2:3b';
  const s = b.addSession('Pictures', new Date(Date.now() - 60_000));
  b.addTurn(s.id, 'Hello there');
  window.addEventListener('error', onError);
  const r = render(App, { backend: b });
  await openSession();
  return { b, r };
}

async function openSession() {
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Pictures' }));
  await screen.findByRole('article', { name: 'Turn 1' });
}

const form = () => screen.getByRole('form', { name: 'Message' });
const box = () => within(form()).getByRole('textbox', { name: 'Message' });
const paste = (...files: File[]) => fireEvent.paste(box(), { clipboardData: { files } });
const tray = () => within(form()).queryByRole('list', { name: 'Images to send' });
const sent = (b: FakeBackend) => b.calls.filter((c) => c.method === 'sendMessage').map((c) => c.args[0] as SendRequest);
const ended = (b: FakeBackend) => waitFor(() => expect([...b.turns.values()].some((t) => t.state === 'running')).toBe(false));

describe('images', () => {
  it('paste, remove one, send; the turn shows the other and opens it full size, also after a reload', async () => {
    const { b, r } = await openApp();
    await paste(pngFile('chart.png', 640, 400), pngFile('photo.png', 300, 200));
    await waitFor(() =>
      expect(
        within(tray()!)
          .getAllByRole('img')
          .map((i) => i.getAttribute('alt')),
      ).toEqual(['chart.png', 'photo.png']),
    );
    const thumb = within(tray()!).getByRole('img', { name: 'chart.png' });
    expect(thumb.getAttribute('src')).toMatch(/^blob:/);
    expect(thumb.closest('li')?.getAttribute('title')).toBe('chart.png: 640 × 400 px · 33 B');

    await fireEvent.click(within(form()).getByRole('button', { name: 'Remove photo.png' }));
    expect(
      within(tray()!)
        .getAllByRole('img')
        .map((i) => i.getAttribute('alt')),
    ).toEqual(['chart.png']);

    await fireEvent.input(box(), { target: { value: 'remember this chart' } });
    await fireEvent.click(within(form()).getByRole('button', { name: 'Send' }));
    const turn = await screen.findByRole('article', { name: 'Turn 2' });
    expect(sent(b)[0]).toMatchObject({
      message: 'remember this chart',
      images: [{ name: 'chart.png', mime: 'image/png', width: 640, height: 400 }],
    });
    expect(sent(b)[0]!.images).toHaveLength(1);
    // The composer is empty again; the turn shows the thumbnail it had.
    expect(tray()).toBeNull();
    const open = within(turn).getByRole('button', { name: 'Open chart.png' });
    await waitFor(() => expect(open.querySelector('img')?.getAttribute('src')).toBe(thumb.getAttribute('src')));
    expect(within(turn).getByText('remember this chart')).toBeTruthy();

    await fireEvent.click(open);
    const dialog = await screen.findByRole('dialog', { name: 'chart.png' });
    expect(within(dialog).getByRole('img', { name: 'chart.png' }).getAttribute('src')).toBe(thumb.getAttribute('src'));
    expect(dialog.textContent).toContain('640 × 400 px · 33 B · PNG');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await ended(b);

    // A new window over the same store: the image comes by its id.
    r.unmount();
    render(App, { backend: b });
    await openSession();
    const again = await screen.findByRole('article', { name: 'Turn 2' });
    const reopened = await within(again).findByRole('button', { name: 'Open chart.png' });
    await waitFor(() => expect(reopened.querySelector('img')?.getAttribute('src')).toMatch(/^blob:/));
    const id = b.calls.filter((c) => c.method === 'getImage').map((c) => c.args[0]);
    expect(id).toEqual([[...b.images.keys()][0]]);
    await fireEvent.click(reopened);
    expect((await screen.findByRole('dialog', { name: 'chart.png' })).textContent).toContain('640 × 400 px');
  });

  it('sends an image with no text, picked with the image button', async () => {
    const { b } = await openApp();
    const picker = form().querySelector<HTMLInputElement>('input[type="file"][accept]')!;
    expect(picker.accept).toBe('image/png,image/jpeg,image/webp,image/gif');
    const send = within(form()).getByRole('button', { name: 'Send' }) as HTMLButtonElement;
    expect(send.disabled).toBe(true);
    await fireEvent.change(picker, { target: { files: [pngFile('only.png', 64, 64)] } });
    await waitFor(() => expect(send.disabled).toBe(false));
    await fireEvent.click(send);
    const turn = await screen.findByRole('article', { name: 'Turn 2' });
    expect(sent(b)[0]).toMatchObject({ message: '', images: [{ name: 'only.png' }] });
    // No empty bubble: the image is the message.
    expect(turn.querySelector('.bubble')).toBeNull();
    expect(within(turn).getByRole('button', { name: 'Open only.png' })).toBeTruthy();
    await ended(b);
  });

  it('asks before sending more than 20 MB of images; Cancel keeps them, Send anyway sends', async () => {
    const { b } = await openApp();
    // Two images of 10.5 MB: each may go, together they are over 20 MB.
    const big = (name: string) => {
      const bytes = new Uint8Array(10.5 * (1 << 20));
      bytes.set(pngBytes(1600, 1200));
      return new File([bytes], name, { type: 'image/png' });
    };
    await paste(big('a.png'), big('b.png'));
    await waitFor(() => expect(within(tray()!).getAllByRole('img')).toHaveLength(2));
    await fireEvent.click(within(form()).getByRole('button', { name: 'Send' }));
    let ask = await screen.findByRole('dialog', { name: 'Send 21 MB of images?' });
    expect(ask.textContent).toContain('These images add up to 21 MB, more than 20 MB.');
    await fireEvent.click(within(ask).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sent(b)).toEqual([]);
    expect(within(tray()!).getAllByRole('img')).toHaveLength(2);

    await fireEvent.keyDown(box(), { key: 'Enter' });
    ask = await screen.findByRole('dialog', { name: 'Send 21 MB of images?' });
    await fireEvent.click(within(ask).getByRole('button', { name: 'Send anyway' }));
    await screen.findByRole('article', { name: 'Turn 2' });
    expect(sent(b)[0]!.images!.map((i) => i.name)).toEqual(['a.png', 'b.png']);
    expect(tray()).toBeNull();
    await ended(b);
  });

  it('a file that is no image says why, and is not sent', async () => {
    await openApp();
    await paste(new File(['not a png'], 'fake.png', { type: 'image/png' }));
    const alert = await within(form()).findByRole('alert');
    expect(alert.textContent).toContain('fake.png could not be read as an image.');
    await fireEvent.click(within(alert).getByRole('button', { name: 'Dismiss the error about fake.png' }));
    expect(within(form()).queryByRole('alert')).toBeNull();
  });

  it('says before sending when the model is not known to see images, and not for a vision model', async () => {
    await openApp(['llama3.2:3b', 'qwen2.5vl:7b']);
    const note = () => within(form()).queryByRole('note');
    expect(note()).toBeNull(); // no images, no note
    await paste(pngFile('chart.png', 640, 400));
    await waitFor(() =>
      expect(note()?.textContent).toBe(
        'llama3.2:3b is not known to see images. If it refuses them, pick a vision model, such as qwen2.5vl, llava or gemma3.',
      ),
    );
    await pickModel(within(form()).getByRole('combobox', { name: 'Model' }), 'ollama', 'qwen2.5vl:7b');
    await waitFor(() => expect(note()).toBeNull());
    await waitFor(() => expect(within(tray()!).getAllByRole('img')).toHaveLength(1));
  });
});
