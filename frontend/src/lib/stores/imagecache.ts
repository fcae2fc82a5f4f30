// The images turns show, by id: fetched once (getImage), kept as object
// URLs while something shows them, and a few more that were shown last so
// scrolling back does not fetch again; the rest are revoked. An image just
// sent is put here under the id its turn's view names, with the URL the
// composer made, so it shows before the turn is stored.
import type { ImageData } from '../types';
import { base64Blob } from '../images';

export interface ShownImage {
  url: string;
  name: string;
  mime: string;
  width: number;
  height: number;
  /** Bytes. */
  size: number;
}

interface Entry {
  promise: Promise<ShownImage>;
  shown: ShownImage | null;
  holds: number;
}

export class ImageCache {
  readonly #entries = new Map<string, Entry>();
  /** Unheld entries, least recently released first. */
  #idle: string[] = [];

  constructor(
    private readonly load: (id: string) => Promise<ImageData>,
    /** Unheld images kept for when they come back on screen. */
    private readonly keep = 32,
  ) {}

  /** Adds an image whose URL the cache owns from now on. */
  put(id: string, shown: ShownImage): void {
    const old = this.#entries.get(id);
    if (old?.shown && old.shown.url !== shown.url) URL.revokeObjectURL(old.shown.url);
    this.#entries.set(id, { promise: Promise.resolve(shown), shown, holds: old?.holds ?? 0 });
    if (!old?.holds) this.#release(id);
  }

  /**
   * An image to show: fetched if it is not here. Call release when it is
   * no longer shown. A failed fetch is forgotten, so a later use tries again.
   */
  use(id: string): { image: Promise<ShownImage>; release: () => void } {
    let e = this.#entries.get(id);
    if (!e) {
      const entry = { shown: null, holds: 0 } as Omit<Entry, 'promise'> as Entry;
      entry.promise = this.load(id).then((d) => {
        const blob = base64Blob(d.data, d.mime);
        const shown = { url: URL.createObjectURL(blob), name: d.name, mime: d.mime, width: d.width, height: d.height, size: blob.size };
        if (this.#entries.get(id) === entry) entry.shown = shown;
        else URL.revokeObjectURL(shown.url); // cleared meanwhile
        return shown;
      });
      entry.promise.catch(() => {
        if (this.#entries.get(id) === entry) this.#entries.delete(id);
      });
      this.#entries.set(id, entry);
      e = entry;
    }
    e.holds++;
    this.#idle = this.#idle.filter((x) => x !== id);
    let done = false;
    const entry = e;
    return {
      image: e.promise,
      release: () => {
        if (done) return;
        done = true;
        entry.holds--;
        if (entry.holds === 0 && this.#entries.get(id) === entry) this.#release(id);
      },
    };
  }

  /** How many images hold a URL (for tests). */
  get size(): number {
    return [...this.#entries.values()].filter((e) => e.shown).length;
  }

  /** Revokes every URL. */
  clear(): void {
    for (const e of this.#entries.values()) if (e.shown) URL.revokeObjectURL(e.shown.url);
    this.#entries.clear();
    this.#idle = [];
  }

  #release(id: string) {
    this.#idle = [...this.#idle.filter((x) => x !== id), id];
    while (this.#idle.length > this.keep) {
      const old = this.#idle.shift()!;
      const e = this.#entries.get(old);
      if (!e || e.holds > 0) continue;
      this.#entries.delete(old);
      if (e.shown) URL.revokeObjectURL(e.shown.url);
      // Still loading: its URL is revoked when it arrives (see use).
    }
  }
}
