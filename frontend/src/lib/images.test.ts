// What an image becomes before it is sent: which files are images, the
// size an image is scaled to, the type it is written as, when the person
// is warned about the total, and what is refused. The browser's decoder
// and canvas are replaced by a codec that records what it was asked.
import { describe, expect, it, vi } from 'vitest';
import {
  encodingFor,
  fitWithin,
  formatBytes,
  imageType,
  MaxImageBytes,
  overTotal,
  prepareImage,
  seesImages,
  splitImages,
  WarnTotalBytes,
  type Codec,
} from './images';

/** A codec that decodes any blob as width×height and writes a blob of the type asked (or of writes, when given). */
function codec(width: number, height: number, writes?: string) {
  const close = vi.fn();
  const encode = vi.fn<Codec['encode']>(
    async (_img, w, h, type) => new Blob([new Uint8Array(Math.max(1, Math.floor((w * h) / 10)))], { type: writes ?? type }),
  );
  const c: Codec = { decode: vi.fn(async () => ({ width, height, source: 'pixels', close })), encode };
  return { codec: c, encode, close };
}

const file = (name: string, type: string, size = 100) => new File([new Uint8Array(size)], name, { type });

describe('which files are images', () => {
  it.each([
    ['shot.png', 'image/png', 'image/png'],
    ['photo.JPG', 'image/jpeg', 'image/jpeg'],
    ['photo.jpg', 'image/jpg', 'image/jpeg'],
    ['anim.gif', 'image/gif', 'image/gif'],
    ['pic.webp', 'image/webp', 'image/webp'],
    ['photo.jpeg', '', 'image/jpeg'],
    ['photo.webp', 'application/octet-stream', 'image/webp'],
  ])('%s (%s) is %s', (name, type, want) => {
    expect(imageType({ name, type })).toBe(want);
  });

  it.each([
    ['sales.csv', 'text/csv'],
    ['icon.svg', 'image/svg+xml'],
    ['scan.tiff', 'image/tiff'],
    ['photo.heic', 'image/heic'],
    // The type the browser read wins over the name.
    ['table.png', 'text/csv'],
    ['notes', ''],
  ])('%s (%s) is not one a model is sent', (name, type) => {
    expect(imageType({ name, type })).toBeNull();
  });

  it('splits a drop into images and tables to attach', () => {
    const files = [file('a.png', 'image/png'), file('sales.csv', 'text/csv'), file('b.jpg', 'image/jpeg'), file('x.svg', 'image/svg+xml')];
    const { images, others } = splitImages(files);
    expect(images.map((f) => f.name)).toEqual(['a.png', 'b.jpg']);
    expect(others.map((f) => f.name)).toEqual(['sales.csv', 'x.svg']);
  });
});

describe('models known to see images', () => {
  // The same names as llm.TestSeesImages: the list is generated from Go.
  it.each([
    ['qwen2.5vl:7b', true],
    ['Qwen/Qwen2.5-VL-7B-Instruct', true],
    ['lmstudio-community/gemma-3-12b-it-GGUF', true],
    ['llama3.2-vision:11b', true],
    ['openai/gpt-4o-mini', true],
    [' GPT-5 ', true],
    ['qwen2.5:7b', false],
    ['llama3.2:3b', false],
    ['o3-mini', false],
    ['', false],
    ['org/', false],
  ])('%j: %s', (model, want) => {
    expect(seesImages(model)).toBe(want);
  });
});

describe('the size an image is sent at', () => {
  it.each([
    // width, height, want
    [800, 600, 800, 600, false],
    [2048, 2048, 2048, 2048, false],
    [2048, 1000, 2048, 1000, false],
    [2049, 1000, 2048, 1000, true],
    [4000, 3000, 2048, 1536, true],
    [3000, 4000, 1536, 2048, true],
    [8192, 8192, 2048, 2048, true],
    [6000, 1000, 2048, 341, true],
    // A sliver keeps a pixel.
    [100000, 10, 2048, 1, true],
  ])('%i×%i → %i×%i', (w, h, ww, wh, scaled) => {
    expect(fitWithin(w, h)).toEqual({ width: ww, height: wh, scaled });
  });

  it('keeps the aspect within a pixel', () => {
    for (const [w, h] of [
      [4032, 3024],
      [3024, 4032],
      [5120, 2880],
      [2500, 2499],
    ] as const) {
      const f = fitWithin(w, h);
      expect(Math.max(f.width, f.height)).toBe(2048);
      expect(Math.abs(f.width / f.height - w / h)).toBeLessThan(1 / Math.min(f.width, f.height));
    }
  });
});

describe('the type a scaled image is written as', () => {
  it.each([
    ['image/png', 'image/png', undefined],
    ['image/gif', 'image/png', undefined],
    ['image/jpeg', 'image/jpeg', 0.9],
    ['image/webp', 'image/webp', 0.9],
  ] as const)('%s → %s', (mime, type, quality) => {
    expect(encodingFor(mime)).toEqual(quality ? { type, quality } : { type });
  });
});

describe('the warning about the total', () => {
  it('comes only above 20 MB in all', () => {
    expect(WarnTotalBytes).toBe(20 * 1024 * 1024);
    expect(overTotal([])).toBe(false);
    expect(overTotal([WarnTotalBytes])).toBe(false);
    expect(overTotal([WarnTotalBytes + 1])).toBe(true);
    expect(overTotal([10 << 20, 10 << 20])).toBe(false);
    expect(overTotal([10 << 20, 10 << 20, 1])).toBe(true);
    expect(overTotal([8 << 20, 8 << 20, 8 << 20])).toBe(true);
  });

  it.each([
    [512, '512 B'],
    [2048, '2 KB'],
    [1536 * 1024, '1.5 MB'],
    [20 << 20, '20 MB'],
    [(23.4 * (1 << 20)) | 0, '23.4 MB'],
    [(20 << 20) + 1, '20 MB'],
    [150 << 20, '150 MB'],
    [2 ** 30, '1 GB'],
    [2.25 * 2 ** 30, '2.3 GB'],
  ])('%i bytes read as %s', (n, want) => {
    expect(formatBytes(n)).toBe(want);
  });
});

describe('prepareImage', () => {
  it('sends an image that fits as it is, without writing it again', async () => {
    const { codec: c, encode, close } = codec(1920, 1080);
    const f = file('shot.png', 'image/png');
    const p = await prepareImage(f, c);
    expect(p).toMatchObject({ name: 'shot.png', mime: 'image/png', width: 1920, height: 1080, scaled: false });
    expect(p.blob).toBe(f);
    expect(encode).not.toHaveBeenCalled();
    expect(close).toHaveBeenCalledOnce();
  });

  it('keeps a GIF that fits a GIF (an animation stays one)', async () => {
    const { codec: c } = codec(480, 270);
    const f = file('anim.gif', 'image/gif');
    expect(await prepareImage(f, c)).toMatchObject({ mime: 'image/gif', blob: f, scaled: false });
  });

  it.each([
    ['photo.jpg', 'image/jpeg', 'image/jpeg', 0.9],
    ['shot.png', 'image/png', 'image/png', undefined],
    ['anim.gif', 'image/gif', 'image/png', undefined],
    ['pic.webp', 'image/webp', 'image/webp', 0.9],
  ] as const)('scales %s down to fit 2048 px and writes it as %s', async (name, type, want, quality) => {
    const { codec: c, encode, close } = codec(4032, 3024);
    const p = await prepareImage(file(name, type), c);
    expect(encode).toHaveBeenCalledWith(expect.objectContaining({ width: 4032, height: 3024 }), 2048, 1536, want, quality);
    expect(p).toMatchObject({ mime: want, width: 2048, height: 1536, scaled: true, original: { width: 4032, height: 3024 } });
    expect(p.blob.type).toBe(want);
    expect(close).toHaveBeenCalledOnce();
  });

  it('says PNG when the canvas could not write WebP (it falls back to PNG)', async () => {
    const { codec: c } = codec(3000, 3000, 'image/png');
    expect(await prepareImage(file('pic.webp', 'image/webp'), c)).toMatchObject({ mime: 'image/png', width: 2048, height: 2048 });
  });

  it('refuses what is not an image, or cannot be read as one', async () => {
    const { codec: c } = codec(10, 10);
    await expect(prepareImage(file('icon.svg', 'image/svg+xml'), c)).rejects.toThrow('icon.svg is not a PNG, JPEG, WebP or GIF image.');
    const broken: Codec = { decode: async () => Promise.reject(new Error('InvalidStateError')), encode: vi.fn() };
    await expect(prepareImage(file('photo.jpg', 'image/jpeg'), broken)).rejects.toThrow(
      'photo.jpg could not be read as an image. It may be damaged, or not the JPEG its name says.',
    );
  });

  it('refuses an image over 20 MB that is not scaled down, and frees it', async () => {
    const { codec: c, close } = codec(2000, 1500);
    await expect(prepareImage(file('huge.gif', 'image/gif', MaxImageBytes + 1), c)).rejects.toThrow(
      'huge.gif is over 20 MB, the most an image may be. Send a smaller one.',
    );
    expect(close).toHaveBeenCalledOnce();
    await expect(prepareImage(file('max.gif', 'image/gif', MaxImageBytes), c)).resolves.toMatchObject({ scaled: false });
  });

  it('sends one over 20 MB once scaled down under it', async () => {
    const { codec: c } = codec(8000, 6000);
    const p = await prepareImage(file('raw.png', 'image/png', MaxImageBytes + 1), c);
    expect(p.blob.size).toBeLessThan(MaxImageBytes);
    expect(p).toMatchObject({ width: 2048, height: 1536 });
  });
});
