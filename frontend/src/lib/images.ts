// Images a person sends with a message, for a model that sees: which
// files are images, how big they may be, and how one is made ready to
// send (decoded for its size, downscaled to fit MaxImageSide). The decode
// and the encode are a Codec, so the decisions can be tested without a
// browser's image code.

import { MaxImageBytes, VisionFamilies } from './generated';

/** The most one image may hold: store.MaxImageBytes, generated (the backend refuses more). */
export { MaxImageBytes };

/** The types the backend accepts (it checks the bytes again: llm.ImageMIMEs). */
export const ImageMIMEs = ['image/png', 'image/jpeg', 'image/webp', 'image/gif'] as const;
export type ImageMIME = (typeof ImageMIMEs)[number];

/** What a file picker offers for images. */
export const ImageAccept = ImageMIMEs.join(',');

/** The longest side an image is sent with; a larger one is scaled down to fit. */
export const MaxImageSide = 2048;

/** Images adding up to more than this are sent only once the person confirms. */
export const WarnTotalBytes = 20 << 20;

/** JPEG and WebP are written again at this quality when scaled down. */
export const EncodeQuality = 0.9;

const byExtension: Record<string, ImageMIME> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  jpe: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

/**
 * The image type of a file: what the browser says it is, else what its
 * name ends with (a drop from some file managers has no type). Null for
 * anything else, which is then a table to attach.
 */
export function imageType(f: { readonly type: string; readonly name: string }): ImageMIME | null {
  const t = f.type.toLowerCase();
  if ((ImageMIMEs as readonly string[]).includes(t)) return t as ImageMIME;
  if (t === 'image/jpg' || t === 'image/pjpeg') return 'image/jpeg';
  if (t && t !== 'application/octet-stream') return null;
  return imageTypeOfName(f.name);
}

/** The image type a file name says (a path from a drop), or null. */
export function imageTypeOfName(name: string): ImageMIME | null {
  const ext = /\.([A-Za-z0-9]+)$/.exec(name)?.[1]?.toLowerCase() ?? '';
  return byExtension[ext] ?? null;
}

/** Splits files into the images to send with the message and the rest (tables to attach). */
export function splitImages<F extends { readonly type: string; readonly name: string }>(files: Iterable<F>): { images: F[]; others: F[] } {
  const images: F[] = [];
  const others: F[] = [];
  for (const f of files) (imageType(f) ? images : others).push(f);
  return { images, others };
}

/**
 * The size an image is sent at: unchanged when both sides fit within max,
 * else scaled by one factor so the longer side is max (the aspect kept,
 * each side at least 1 px).
 */
export function fitWithin(width: number, height: number, max = MaxImageSide): { width: number; height: number; scaled: boolean } {
  if (width <= max && height <= max) return { width, height, scaled: false };
  const f = max / Math.max(width, height);
  return { width: Math.max(1, Math.round(width * f)), height: Math.max(1, Math.round(height * f)), scaled: true };
}

/**
 * The type a scaled image is written as: its own where a canvas writes it,
 * PNG for a GIF (a canvas writes no GIF; PNG keeps its sharp edges and
 * transparency). JPEG and WebP get a quality; PNG is lossless.
 */
export function encodingFor(mime: ImageMIME): { type: ImageMIME; quality?: number } {
  switch (mime) {
    case 'image/jpeg':
    case 'image/webp':
      return { type: mime, quality: EncodeQuality };
    default:
      return { type: 'image/png' };
  }
}

/** Whether images of these sizes (bytes) add up to more than the limit: the person confirms before sending. */
export function overTotal(sizes: readonly number[], limit = WarnTotalBytes): boolean {
  return totalBytes(sizes) > limit;
}

export function totalBytes(sizes: readonly number[]): number {
  return sizes.reduce((a, b) => a + b, 0);
}

const visionFamilies = VisionFamilies.split(',');

/**
 * Whether a model is of a family known to see images (llm.SeesImages, on
 * the same generated list): a hint before sending, never a gate.
 */
export function seesImages(model: string): boolean {
  const name = model.trim().toLowerCase();
  const base = name.slice(name.lastIndexOf('/') + 1);
  return base !== '' && visionFamilies.some((f) => base.startsWith(f));
}

/** A size for people: bytes, KB, MB or GB (binary, as the limits are). */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${Math.round(n / 1024)} KB`;
  // A database outgrows megabytes; an image never does.
  const [unit, size] = n < 1 << 30 ? ['MB', n / (1 << 20)] : ['GB', n / (1 << 30)];
  const x = Math.round(size * 10) / 10;
  return `${x < 100 && !Number.isInteger(x) ? x.toFixed(1) : Math.round(x)} ${unit}`;
}

/** A decoded image: its size in pixels, and what the encoder draws from. */
export interface Decoded {
  width: number;
  height: number;
  source: unknown;
  /** Frees the decoded pixels. */
  close(): void;
}

/** Decodes an image and writes one at another size. */
export interface Codec {
  decode(blob: Blob): Promise<Decoded>;
  /** Draws the decoded image at width×height and writes it as type (the Blob's type says what was written). */
  encode(img: Decoded, width: number, height: number, type: string, quality?: number): Promise<Blob>;
}

/** An image ready to send: its bytes as they will go, and its size. */
export interface Prepared {
  name: string;
  mime: ImageMIME;
  width: number;
  height: number;
  blob: Blob;
  /** Its size before it was scaled down (the same when it was not). */
  original: { width: number; height: number };
  scaled: boolean;
}

/**
 * Makes a file ready to send: decodes it for its size and, when a side is
 * over MaxImageSide, writes it again scaled to fit. An image that fits is
 * sent as it is (an animated GIF stays animated). Throws, with a message
 * to show, for a file that is not a readable image of an accepted type or
 * that is too large to send.
 */
export async function prepareImage(file: File, codec: Codec = browserCodec, max = MaxImageSide): Promise<Prepared> {
  const mime = imageType(file);
  if (!mime) throw new Error(`${file.name} is not a PNG, JPEG, WebP or GIF image.`);
  let img: Decoded;
  try {
    img = await codec.decode(file);
  } catch {
    throw new Error(
      `${file.name} could not be read as an image. It may be damaged, or not the ${mime.slice(6).toUpperCase()} its name says.`,
    );
  }
  try {
    const fit = fitWithin(img.width, img.height, max);
    const original = { width: img.width, height: img.height };
    let out: Prepared = { name: file.name, mime, width: img.width, height: img.height, blob: file, original, scaled: false };
    if (fit.scaled) {
      const enc = encodingFor(mime);
      const blob = await codec.encode(img, fit.width, fit.height, enc.type, enc.quality);
      // A canvas that cannot write the type asked for writes PNG instead.
      const written = imageType({ type: blob.type, name: '' }) ?? enc.type;
      out = { ...out, mime: written, width: fit.width, height: fit.height, blob, scaled: true };
    }
    if (out.blob.size > MaxImageBytes) {
      throw new Error(
        `${file.name} is over ${MaxImageBytes >> 20} MB${out.scaled ? ' even scaled down' : ''}, the most an image may be. Send a smaller one.`,
      );
    }
    if (out.blob.size === 0) throw new Error(`${file.name} is empty.`);
    return out;
  } finally {
    img.close();
  }
}

/** The browser's codec: createImageBitmap, and a canvas (offscreen where there is one) to scale. */
export const browserCodec: Codec = {
  async decode(blob) {
    const bmp = await createImageBitmap(blob);
    return { width: bmp.width, height: bmp.height, source: bmp, close: () => bmp.close() };
  },
  async encode(img, width, height, type, quality) {
    const source = img.source as ImageBitmap;
    if (typeof OffscreenCanvas !== 'undefined') {
      const c = new OffscreenCanvas(width, height);
      draw(c.getContext('2d'), source, width, height);
      return c.convertToBlob({ type, quality });
    }
    const c = document.createElement('canvas');
    c.width = width;
    c.height = height;
    draw(c.getContext('2d'), source, width, height);
    return new Promise((resolve, reject) =>
      c.toBlob((b) => (b ? resolve(b) : reject(new Error('The image could not be written.'))), type, quality),
    );
  },
};

function draw(
  ctx: OffscreenCanvasRenderingContext2D | CanvasRenderingContext2D | null,
  source: ImageBitmap,
  width: number,
  height: number,
) {
  if (!ctx) throw new Error('The image could not be scaled: no canvas.');
  ctx.imageSmoothingEnabled = true;
  ctx.imageSmoothingQuality = 'high';
  ctx.drawImage(source, 0, 0, width, height);
}

/** Reads a Blob as base64 (a data: URL without its head). */
export function blobBase64(blob: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => {
      const url = String(r.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    r.onerror = () => reject(new Error('The image could not be read.'));
    r.readAsDataURL(blob);
  });
}

/** The bytes of base64 text, as a Blob of a type. */
export function base64Blob(data: string, type: string): Blob {
  const bin = atob(data);
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Blob([bytes], { type });
}
