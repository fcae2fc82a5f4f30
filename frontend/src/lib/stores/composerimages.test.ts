// The composer's images: each is read into a thumbnail and its bytes,
// says why it cannot be sent, and frees its thumbnail when removed, but
// not when sent (the turn shows it then).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Prepared } from '../images';
import { ComposerImages } from './composerimages.svelte';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const png = (name = 'shot.png') => new File([new Uint8Array([137, 80, 78, 71, 1, 2, 3])], name, { type: 'image/png' });

function prepared(f: File, over: Partial<Prepared> = {}): Prepared {
  return {
    name: f.name,
    mime: 'image/png',
    width: 640,
    height: 480,
    blob: f,
    original: { width: 640, height: 480 },
    scaled: false,
    ...over,
  };
}

afterEach(() => vi.restoreAllMocks());

describe('ComposerImages', () => {
  it('shows an image while it is read, then its thumbnail, size and bytes', async () => {
    const ready = deferred<Prepared>();
    const images = new ComposerImages({ prepare: () => ready.promise, read: async () => 'iVBORw==' });
    const created = vi.spyOn(URL, 'createObjectURL');
    const f = png();
    const done = images.add([f]);
    expect(images.items).toMatchObject([{ name: 'shot.png', state: 'reading', url: '' }]);
    expect(images.busy).toBe(true);
    expect(images.ready).toEqual([]);
    ready.resolve(prepared(f));
    await done;
    expect(images.busy).toBe(false);
    expect(images.ready).toMatchObject([
      { name: 'shot.png', state: 'ready', mime: 'image/png', width: 640, height: 480, size: 7, data: 'iVBORw==', original: null },
    ]);
    expect(created).toHaveBeenCalledWith(f);
    expect(images.ready[0]!.url).toBe(created.mock.results[0]!.value);
  });

  it('says from what size an image was scaled down', async () => {
    const f = png();
    const small = new Blob([new Uint8Array(3)], { type: 'image/png' });
    const images = new ComposerImages({
      prepare: async () => prepared(f, { blob: small, width: 2048, height: 1536, scaled: true, original: { width: 4032, height: 3024 } }),
      read: async () => 'AAAA',
    });
    await images.add([f]);
    expect(images.ready).toMatchObject([{ width: 2048, height: 1536, size: 3, original: { width: 4032, height: 3024 } }]);
  });

  it('keeps a failure with its reason until dismissed; it is never sent', async () => {
    const images = new ComposerImages({ prepare: async () => Promise.reject(new Error('shot.png could not be read as an image.')) });
    await images.add([png()]);
    expect(images.items).toMatchObject([{ state: 'failed', error: 'shot.png could not be read as an image.' }]);
    expect(images.ready).toEqual([]);
    expect(images.busy).toBe(false);
    images.remove(images.items[0]!.id);
    expect(images.items).toEqual([]);
  });

  it('frees the thumbnail of one removed, not of those sent', async () => {
    const images = new ComposerImages({ prepare: async (f) => prepared(f), read: async () => 'AAAA' });
    const revoked = vi.spyOn(URL, 'revokeObjectURL');
    await images.add([png('a.png'), png('b.png'), png('c.png')]);
    const [a, b, c] = images.items;
    images.remove(b!.id);
    expect(revoked).toHaveBeenCalledExactlyOnceWith(b!.url);
    images.take([a!.id]);
    expect(images.items.map((i) => i.name)).toEqual(['c.png']);
    expect(revoked).toHaveBeenCalledOnce();
    images.clear();
    expect(revoked).toHaveBeenLastCalledWith(c!.url);
    expect(images.items).toEqual([]);
  });

  it('drops an image removed while it was read', async () => {
    const ready = deferred<Prepared>();
    const images = new ComposerImages({ prepare: () => ready.promise, read: async () => 'AAAA' });
    const created = vi.spyOn(URL, 'createObjectURL');
    const f = png();
    const done = images.add([f]);
    images.remove(images.items[0]!.id);
    ready.resolve(prepared(f));
    await done;
    expect(images.items).toEqual([]);
    expect(created).not.toHaveBeenCalled();
  });
});
