// Files the page sends for the next message to attach. A browser, and the
// window's file picker, know a file's bytes but not its path, so each file
// is read, sent with UploadAttachment, and attached by the path the backend
// stored it at. The composer shows each one while it is read and sent, and
// why it failed until the person dismisses it.
import { messageOf } from '../api';
import { MaxUploadBytes } from '../generated';
import type { UploadedFile } from '../types';

export interface Upload {
  readonly id: number;
  readonly name: string;
  /** reading: the page reads the file; sending: the backend stores it; failed: error says why. */
  readonly state: 'reading' | 'sending' | 'failed';
  /** How much of the file is read, 0 to 100. */
  readonly percent: number;
  readonly error: string;
}

/** Stores a file's bytes (base64) and answers where: Backend.uploadAttachment. */
export type Send = (name: string, content: string) => Promise<UploadedFile>;
/** Reads a file as base64, telling how far it got (0 to 1). */
export type Read = (file: File, progress: (fraction: number) => void) => Promise<string>;

export class Uploads {
  /** The files being read or sent, and those that failed. */
  items = $state.raw<readonly Upload[]>([]);

  readonly #send: Send;
  readonly #attach: (path: string) => void;
  readonly #read: Read;
  #next = 1;

  /** attach adds a stored file's path to the next message. */
  constructor(send: Send, attach: (path: string) => void, read: Read = readBase64) {
    this.#send = send;
    this.#attach = attach;
    this.#read = read;
  }

  /** Whether a file is still being read or sent: a message sent now would go without it. */
  get busy(): boolean {
    return this.items.some((u) => u.state !== 'failed');
  }

  /** Sends the files and attaches each one stored; resolves when all are done. */
  async add(files: Iterable<File>): Promise<void> {
    await Promise.all([...files].map((f) => this.#one(f)));
  }

  /** Takes a failed upload off the list. */
  dismiss(id: number): void {
    this.items = this.items.filter((u) => u.id !== id);
  }

  async #one(file: File): Promise<void> {
    const id = this.#next++;
    if (file.size > MaxUploadBytes) {
      this.items = [...this.items, { id, name: file.name, state: 'failed', percent: 0, error: tooBig(file) }];
      return;
    }
    this.items = [...this.items, { id, name: file.name, state: 'reading', percent: 0, error: '' }];
    try {
      const content = await this.#read(file, (f) => this.#patch(id, { percent: Math.min(100, Math.round(f * 100)) }));
      this.#patch(id, { state: 'sending', percent: 100 });
      const stored = await this.#send(file.name, content);
      this.#attach(stored.path);
      this.dismiss(id);
    } catch (err) {
      this.#patch(id, { state: 'failed', error: messageOf(err) });
    }
  }

  #patch(id: number, patch: Partial<Upload>) {
    this.items = this.items.map((u) => (u.id === id ? { ...u, ...patch } : u));
  }
}

/** The refusal the backend would give, without reading the file. */
function tooBig(file: File): string {
  return `${file.name} is ${megabytes(file.size)}, over the ${megabytes(MaxUploadBytes)} a file sent from the page may have. Attach a smaller file, or attach this one by its path: drop it on the desktop window, or use \`agentdeck run --attach FILE\`.`;
}

function megabytes(n: number): string {
  const mb = n / (1 << 20);
  return Number.isInteger(mb) ? `${mb} MB` : `${mb.toFixed(1)} MB`;
}

/** Reads a file as base64 (a data: URL without its head). */
export function readBase64(file: File, progress: (fraction: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) progress(e.loaded / e.total);
    };
    r.onload = () => {
      const url = String(r.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    r.onerror = () =>
      reject(new Error(`${file.name} could not be read. Check that it still exists and that you may read it, then attach it again.`));
    r.readAsDataURL(file);
  });
}
