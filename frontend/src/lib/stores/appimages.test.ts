// Images through the app's stores over the fake backend: a paste or a
// drop sorts images from tables, a message sends its images inline and
// its turn shows them at once, by the thumbnails the page has, then by
// the stored ids once read back; a new version of the turn sends them
// again.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../fake';
import type { SendRequest } from '../types';
import { createApp, type OutgoingImage } from './app.svelte';
import { decodePNGHead, pngBytes, pngFile } from './testing';

function setup() {
  const b = new FakeBackend({ tick: 2, tokensPerTick: 50 });
  b.settings.default_provider = 'ollama';
  b.settings.default_model = 'm1';
  const app = createApp(b, { raf: (cb) => cb() });
  app.start();
  return { b, app };
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const sent = (b: FakeBackend) => b.calls.filter((c) => c.method === 'sendMessage').map((c) => c.args[0] as SendRequest);
const ended = (b: FakeBackend) => vi.waitFor(() => expect([...b.turns.values()].every((t) => t.state !== 'running')).toBe(true));

function outgoing(name: string, w: number, h: number, url = ''): OutgoingImage {
  const bytes = pngBytes(w, h);
  return { name, mime: 'image/png', width: w, height: h, size: bytes.length, data: b64(bytes), ...(url ? { url } : {}) };
}

beforeEach(() => vi.stubGlobal('createImageBitmap', decodePNGHead));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('images in the app', () => {
  it('a paste of images and tables sorts them; a paste of text is left alone', async () => {
    const { b, app } = setup();
    const paste = (files: File[]) => {
      const e = { clipboardData: { files }, preventDefault: vi.fn() } as unknown as ClipboardEvent;
      app.paste(e);
      return e;
    };
    expect(paste([]).preventDefault).not.toHaveBeenCalled();
    const csv = new File(['a,b\n1,2\n'], 'sales.csv', { type: 'text/csv' });
    expect(paste([pngFile('shot.png', 640, 480), csv]).preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(app.composerImages.ready).toMatchObject([{ name: 'shot.png', width: 640, height: 480 }]));
    await vi.waitFor(() => expect(app.composer.attachments).toEqual([expect.stringMatching(/\/sales\.csv$/)]));
    expect(b.calls.filter((c) => c.method === 'uploadAttachment').map((c) => c.args[0])).toEqual(['sales.csv']);
  });

  it('an empty paste in the window reads the image from the clipboard through the backend; a paste of text is left alone', async () => {
    const { b, app } = setup();
    Object.defineProperty(b, 'kind', { value: 'wails' });
    const paste = (types: string[]) => {
      const e = { clipboardData: { files: [], items: [], types }, preventDefault: vi.fn() } as unknown as ClipboardEvent;
      app.paste(e);
      return e;
    };
    // Text: the page pastes it itself, and the backend is not asked.
    expect(paste(['text/plain']).preventDefault).not.toHaveBeenCalled();
    expect(b.calls.some((c) => c.method === 'clipboardImage')).toBe(false);
    // An image WebKitGTK handed over empty: the backend reads it.
    b.clipboard = { name: 'pasted-image.png', mime: 'image/png', width: 40, height: 30, data: b64(pngBytes(40, 30)) };
    expect(paste([]).preventDefault).toHaveBeenCalled();
    await vi.waitFor(() => expect(app.composerImages.ready).toMatchObject([{ name: 'pasted-image.png', width: 40, height: 30 }]));
    // Nothing on the clipboard: the backend's reason, and nothing added.
    b.clipboard = null;
    paste([]);
    await vi.waitFor(() => expect(app.ui.toast).toBe('The clipboard holds no image. Copy one, or add it with the image button.'));
    expect(app.composerImages.ready).toHaveLength(1);
    expect(b.calls.filter((c) => c.method === 'clipboardImage')).toHaveLength(2);
  });

  it('a browser never asks the backend for the clipboard', () => {
    const { b, app } = setup();
    app.paste({ clipboardData: { files: [], items: [], types: [] }, preventDefault: vi.fn() } as unknown as ClipboardEvent);
    expect(b.calls.some((c) => c.method === 'clipboardImage')).toBe(false);
  });

  it('a drop in a browser: images to the message, other files uploaded', async () => {
    const { b, app } = setup();
    const dt = {
      files: [pngFile('a.png', 10, 10), new File(['x\n1\n'], 't.csv', { type: 'text/csv' })],
      getData: () => '',
    } as unknown as DataTransfer;
    app.drop(dt, false);
    await vi.waitFor(() => expect(app.composerImages.ready.map((i) => i.name)).toEqual(['a.png']));
    await vi.waitFor(() => expect(app.composer.attachments).toHaveLength(1));
    expect(b.calls.filter((c) => c.method === 'uploadAttachment').map((c) => c.args[0])).toEqual(['t.csv']);
  });

  it('a drop on the window: tables by their paths, images by their bytes, never as tables', async () => {
    const { b, app } = setup();
    Object.defineProperty(b, 'kind', { value: 'wails' });
    // The web view gave no bytes for shot.png: the backend reads it by its path.
    b.files.set('/home/ada/shot.png', { name: 'shot.png', mime: 'image/png', width: 30, height: 20, data: b64(pngBytes(30, 20)) });
    const list = 'file:///home/ada/a.png\nfile:///home/ada/t.csv\nfile:///home/ada/shot.png\nfile:///home/ada/lost.jpg';
    const dt = {
      files: [pngFile('a.png', 10, 10)],
      getData: (t: string) => (t === 'text/uri-list' ? list : ''),
    } as unknown as DataTransfer;
    app.drop(dt, true);
    expect(app.composer.attachments).toEqual(['/home/ada/t.csv']);
    await vi.waitFor(() => expect(app.composerImages.ready.map((i) => i.name)).toEqual(['a.png', 'shot.png']));
    expect(app.composerImages.ready.find((i) => i.name === 'shot.png')).toMatchObject({ width: 30, height: 20 });
    // lost.jpg is gone from the disk: the backend's reason is shown, nothing attached.
    expect(app.ui.toast).toBe('/home/ada/lost.jpg: there is no such file');
    expect(b.calls.filter((c) => c.method === 'imageFile').map((c) => c.args[0])).toEqual(['/home/ada/shot.png', '/home/ada/lost.jpg']);
    expect(b.calls.some((c) => c.method === 'uploadAttachment')).toBe(false);
  });

  it('sends images inline, shows them at once, and by their stored ids once read back', async () => {
    const { b, app } = setup();
    const image = outgoing('chart.png', 1200, 800, 'blob:from-composer');
    const id = await app.send('  ', [], [image]);
    expect(id).toBeTruthy();
    // Only what the backend reads: no id, size or thumbnail URL.
    expect(sent(b)[0]).toMatchObject({
      message: '',
      images: [{ name: 'chart.png', mime: 'image/png', width: 1200, height: 800, data: image.data }],
    });
    expect(Object.keys(sent(b)[0]!.images![0]!).sort()).toEqual(['data', 'height', 'mime', 'name', 'width']);
    // An image-only message is titled by its image.
    expect(app.conversation.session?.title).toBe('chart.png');
    const view = app.turns.view(id!);
    expect(view.userImages).toEqual([
      { id: `local:${id}:0`, name: 'chart.png', mime: 'image/png', width: 1200, height: 800, size: image.size },
    ]);
    const shown = await app.imageCache.use(view.userImages[0]!.id).image;
    expect(shown.url).toBe('blob:from-composer');
    expect(b.calls.some((c) => c.method === 'getImage')).toBe(false);
    await ended(b);

    // Another window reads the stored turn: the images by their ids.
    const other = createApp(b, { raf: (cb) => cb() });
    other.start();
    await other.openSession(app.conversation.session!.id);
    await other.turns.load(id!);
    const stored = other.turns.view(id!).userImages;
    expect(stored).toEqual([
      { id: expect.stringMatching(/^img/), name: 'chart.png', mime: 'image/png', width: 1200, height: 800, size: image.size },
    ]);
    const fetched = await other.imageCache.use(stored[0]!.id).image;
    expect(fetched).toMatchObject({ name: 'chart.png', width: 1200, height: 800, size: image.size });
    expect(b.calls.filter((c) => c.method === 'getImage').map((c) => c.args[0])).toEqual([stored[0]!.id]);
    other.stop();
    app.stop();
  });

  it('refuses nothing but an empty message: text, images, or both', async () => {
    const { app } = setup();
    expect(await app.send('   ')).toBeNull();
    expect(await app.send('', [], [])).toBeNull();
  });

  it('a new version of a turn with images sends them again, read from the store', async () => {
    const { b, app } = setup();
    const a = outgoing('a.png', 300, 200);
    const id = (await app.send('remember what this shows', [], [a]))!;
    await ended(b);
    const v2 = await app.sendVersion(id, 'remember what this shows, briefly');
    expect(v2).toBeTruthy();
    // The view named the image by the page's id: the stored turn was read for the real one.
    expect(b.calls.some((c) => c.method === 'getTurn' && c.args[0] === id)).toBe(true);
    const again = sent(b)[1]!;
    expect(again).toMatchObject({
      message: 'remember what this shows, briefly',
      version_of: id,
      images: [{ name: 'a.png', mime: 'image/png', width: 300, height: 200, data: a.data }],
    });
    expect(again.images![0]).not.toHaveProperty('id');
    // The new version shows the same stored image.
    expect(app.turns.view(v2!).userImages).toEqual([expect.objectContaining({ id: expect.stringMatching(/^img/), name: 'a.png' })]);
    await ended(b);
    app.stop();
  });
});
