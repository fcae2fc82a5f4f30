// The images turns show: fetched once per id however many show it, kept
// while shown and for a few more, then revoked; a failed fetch is tried
// again; an image put by the page is never fetched.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ImageData } from '../types';
import { ImageCache } from './imagecache';

const data = (id: string): ImageData => ({ id, name: `${id}.png`, mime: 'image/png', width: 2, height: 1, data: 'iVBORw0KGgo=' });

afterEach(() => vi.restoreAllMocks());

describe('ImageCache', () => {
  it('fetches an image once for everything that shows it', async () => {
    const load = vi.fn(async (id: string) => data(id));
    const cache = new ImageCache(load);
    const a = cache.use('img1');
    const b = cache.use('img1');
    const [x, y] = await Promise.all([a.image, b.image]);
    expect(load).toHaveBeenCalledOnce();
    expect(x).toBe(y);
    expect(x).toMatchObject({ name: 'img1.png', mime: 'image/png', width: 2, height: 1, size: 8 });
    expect(x.url).toMatch(/^blob:/);
  });

  it('keeps the last few released, and revokes older ones unless still shown', async () => {
    const revoked = vi.spyOn(URL, 'revokeObjectURL');
    const load = vi.fn(async (id: string) => data(id));
    const cache = new ImageCache(load, 2);
    const shown = cache.use('held');
    const held = await shown.image;
    const urls: string[] = [];
    for (const id of ['a', 'b', 'c']) {
      const u = cache.use(id);
      urls.push((await u.image).url);
      u.release();
    }
    // a went (three released, two kept); the one still shown stays.
    expect(revoked).toHaveBeenCalledExactlyOnceWith(urls[0]);
    expect(cache.size).toBe(3);
    // b is still here: shown again without a fetch.
    expect(await cache.use('b').image).toMatchObject({ url: urls[1] });
    expect(load.mock.calls.filter((c) => c[0] === 'b')).toHaveLength(1);
    shown.release();
    shown.release(); // twice is once
    expect(revoked).not.toHaveBeenCalledWith(held.url);
  });

  it('tries again after a failed fetch', async () => {
    const load = vi
      .fn<(id: string) => Promise<ImageData>>()
      .mockRejectedValueOnce(new Error('There is no image x'))
      .mockResolvedValue(data('x'));
    const cache = new ImageCache(load);
    const first = cache.use('x');
    await expect(first.image).rejects.toThrow('There is no image x');
    first.release();
    await expect(cache.use('x').image).resolves.toMatchObject({ name: 'x.png' });
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('shows an image put by the page without fetching it, and revokes everything on clear', async () => {
    const revoked = vi.spyOn(URL, 'revokeObjectURL');
    const load = vi.fn(async (id: string) => data(id));
    const cache = new ImageCache(load);
    cache.put('local:t1:0', { url: 'blob:sent', name: 'shot.png', mime: 'image/png', width: 640, height: 480, size: 1234 });
    expect(await cache.use('local:t1:0').image).toMatchObject({ url: 'blob:sent', name: 'shot.png' });
    const other = await cache.use('img9').image;
    expect(load).toHaveBeenCalledExactlyOnceWith('img9');
    cache.clear();
    expect(revoked.mock.calls.map((c) => c[0]).sort()).toEqual(['blob:sent', other.url].sort());
  });
});
