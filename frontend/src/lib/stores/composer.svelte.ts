// The next message as it is written: its text, the files to attach (paths
// on the backend's machine), the files being uploaded to be attached, and
// its images. Files come picked, pasted or dropped; images go with the
// message by their bytes, anything else as a table to attach.
import { messageOf, type Backend } from '../api';
import { filesFromDrop } from '../dom';
import { imageTypeOfName, splitImages } from '../images';
import type { ImageData } from '../types';
import { ComposerImages } from './composerimages.svelte';
import { TargetsDraft } from './sidebyside.svelte';
import { Uploads } from './uploads.svelte';

export type ComposerBackend = Pick<Backend, 'kind' | 'uploadAttachment' | 'imageFile' | 'clipboardImage'>;

export class ComposerState {
  #backend: ComposerBackend;
  #toast: (message: string) => void;
  /** The message being written, not sent yet. */
  text = $state('');
  /** Files (paths on the backend's machine) to attach to the next message. */
  attachments = $state.raw<string[]>([]);
  /** Files the page sends to be attached: picked, dropped or pasted (uploads.svelte.ts). */
  readonly uploads: Uploads;
  /** Images to send with the next message: pasted, dropped or picked. */
  readonly images = new ComposerImages();
  /** The targets the next message goes to side by side, when two or more are picked. */
  readonly targets = new TargetsDraft();

  constructor(backend: ComposerBackend, toast: (message: string) => void) {
    this.#backend = backend;
    this.#toast = toast;
    this.uploads = new Uploads(
      (name, content) => backend.uploadAttachment(name, content),
      (path) => this.attach([path]),
    );
  }

  /** Adds attachment paths, without duplicates. */
  attach(paths: string[]) {
    if (paths.length === 0) return;
    const list = this.attachments;
    this.attachments = [...list, ...paths.filter((p) => p && !list.includes(p))];
  }

  /** Takes an attachment off the next message. */
  detach(path: string) {
    this.attachments = this.attachments.filter((x) => x !== path);
  }

  /**
   * Adds files to the next message: images to send with it, anything
   * else as a table to attach (uploaded first: uploads.svelte.ts).
   */
  addFiles(files: Iterable<File>) {
    const { images, others } = splitImages(files);
    if (images.length) void this.images.add(images);
    if (others.length) void this.uploads.add(others);
  }

  /** Adds the files of a paste, if it holds any; a paste of text goes on as usual. */
  paste(e: ClipboardEvent) {
    const files = pastedFiles(e.clipboardData);
    if (files.length === 0) {
      // The Linux window's web view (WebKitGTK) hands a paste of an image
      // to the page empty: no files, no types at all (a paste of text
      // has its type). The backend reads the clipboard itself.
      if (this.#backend.kind === 'wails' && (e.clipboardData?.types?.length ?? 0) === 0) {
        e.preventDefault();
        void this.#imagesFromBackend([() => this.#backend.clipboardImage()]);
      }
      return;
    }
    e.preventDefault();
    this.addFiles(files);
  }

  /**
   * Adds what a drop brings. Images go with the message by their bytes,
   * never as tables by their paths. In the window, the runtime names the
   * dropped files (runtimeDrop: Backend.onFileDrop attaches those
   * paths), so only images are taken from the drop's files; in a
   * browser every other file is uploaded to be attached.
   */
  drop(dt: DataTransfer, runtimeDrop: boolean) {
    const { images } = splitImages(Array.from(dt.files ?? []));
    if (images.length) void this.images.add(images);
    const { paths, files } = filesFromDrop(dt, this.#backend.kind === 'wails');
    this.attach(paths.filter((p) => !imageTypeOfName(p)));
    // An image known only by its path (the window's web view gave no
    // bytes for it; only the window names paths): the backend reads it.
    const unread = paths.filter((p) => imageTypeOfName(p) && !images.some((f) => f.name === baseName(p)));
    if (unread.length) void this.#imagesFromBackend(unread.map((p) => () => this.#backend.imageFile(p)));
    const others = splitImages(files).others;
    if (others.length && !runtimeDrop) void this.uploads.add(others);
  }

  // Adds the images the backend reads (from files, from the clipboard) to
  // the next message; one that cannot be read says why.
  async #imagesFromBackend(reads: (() => Promise<ImageData>)[]) {
    const files: File[] = [];
    for (const read of reads) {
      try {
        const im = await read();
        const bytes = Uint8Array.from(atob(im.data), (c) => c.charCodeAt(0));
        files.push(new File([bytes], im.name, { type: im.mime }));
      } catch (err) {
        this.#toast(messageOf(err));
      }
    }
    if (files.length) await this.images.add(files);
  }
}

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}

/**
 * The files a paste holds. Browsers list a copied image in files;
 * WebKitGTK (the Linux window) may offer it only as an item of kind file,
 * so the items are read too when files has none.
 */
export function pastedFiles(dt: DataTransfer | null): File[] {
  if (!dt) return [];
  const files = [...(dt.files ?? [])];
  if (files.length > 0) return files;
  const out: File[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue;
    const f = item.getAsFile();
    if (f) out.push(f);
  }
  return out;
}
