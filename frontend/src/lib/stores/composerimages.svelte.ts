// Images waiting in the composer for the next message: pasted, dropped or
// picked. Each is decoded, scaled down if it is over MaxImageSide
// (lib/images.ts), read as base64 and shown as a thumbnail (an object URL
// this store owns) until it is removed or sent. Images go inline with the
// message (SendRequest.images); unlike attached tables, nothing is
// uploaded first.
import { blobBase64, prepareImage, type Prepared } from '../images';

export interface PendingImage {
  readonly id: number;
  readonly name: string;
  /** reading: being decoded and scaled; ready: to send; failed: error says why. */
  readonly state: 'reading' | 'ready' | 'failed';
  readonly error: string;
  readonly mime: string;
  readonly width: number;
  readonly height: number;
  /** Bytes as sent. */
  readonly size: number;
  /** The bytes, base64. */
  readonly data: string;
  /** The thumbnail's object URL ('' until ready). */
  readonly url: string;
  /** Scaled down from this size (null when sent as it was). */
  readonly original: { width: number; height: number } | null;
}

export interface ComposerImagesOptions {
  prepare?: (file: File) => Promise<Prepared>;
  read?: (blob: Blob) => Promise<string>;
}

export class ComposerImages {
  items = $state.raw<readonly PendingImage[]>([]);

  readonly #prepare: (file: File) => Promise<Prepared>;
  readonly #read: (blob: Blob) => Promise<string>;
  #next = 1;

  constructor(opts: ComposerImagesOptions = {}) {
    this.#prepare = opts.prepare ?? ((f) => prepareImage(f));
    this.#read = opts.read ?? blobBase64;
  }

  /** The images to send with the next message. */
  get ready(): PendingImage[] {
    return this.items.filter((i) => i.state === 'ready');
  }

  /** Whether an image is still being read: a message sent now would go without it. */
  get busy(): boolean {
    return this.items.some((i) => i.state === 'reading');
  }

  /** Reads the images and adds each one that can be sent; resolves when all are done. */
  async add(files: Iterable<File>): Promise<void> {
    await Promise.all([...files].map((f) => this.#one(f)));
  }

  /** Takes an image off (removed by the person, or a failure dismissed), freeing its thumbnail. */
  remove(id: number): void {
    const im = this.items.find((i) => i.id === id);
    if (im?.url) URL.revokeObjectURL(im.url);
    this.items = this.items.filter((i) => i.id !== id);
  }

  /**
   * Takes sent images off without freeing their thumbnails: whoever sent
   * them now owns the URLs (the turn shows them).
   */
  take(ids: readonly number[]): void {
    this.items = this.items.filter((i) => !ids.includes(i.id));
  }

  /** Removes them all. */
  clear(): void {
    for (const i of this.items) this.remove(i.id);
  }

  async #one(file: File): Promise<void> {
    const id = this.#next++;
    this.items = [
      ...this.items,
      {
        id,
        name: file.name || 'image',
        state: 'reading',
        error: '',
        mime: file.type,
        width: 0,
        height: 0,
        size: 0,
        data: '',
        url: '',
        original: null,
      },
    ];
    try {
      const p = await this.#prepare(file);
      const data = await this.#read(p.blob);
      if (!this.items.some((i) => i.id === id)) return; // removed meanwhile
      const url = URL.createObjectURL(p.blob);
      this.#patch(id, {
        state: 'ready',
        mime: p.mime,
        width: p.width,
        height: p.height,
        size: p.blob.size,
        data,
        url,
        original: p.scaled ? p.original : null,
      });
    } catch (err) {
      this.#patch(id, { state: 'failed', error: String((err as Error)?.message ?? err) });
    }
  }

  #patch(id: number, patch: Partial<PendingImage>) {
    this.items = this.items.map((i) => (i.id === id ? { ...i, ...patch } : i));
  }
}
