import { describe, expect, it, vi } from 'vitest';
import { BackendError } from '../api';
import { MaxUploadBytes } from '../generated';
import type { UploadedFile } from '../types';
import { Uploads, type Send } from './uploads.svelte';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const csv = () => new File(['region,revenue\nNorth,42\n'], 'sales.csv', { type: 'text/csv' });

describe('uploads', () => {
  it('read a file, send its name and base64, and attach the path it was stored at', async () => {
    const reply = deferred<UploadedFile>();
    const sent = deferred<void>();
    const send = vi.fn<Send>(() => (sent.resolve(), reply.promise));
    const attached: string[] = [];
    const u = new Uploads(send, (p) => attached.push(p));
    const done = u.add([csv()]);
    expect(u.items).toMatchObject([{ name: 'sales.csv', state: 'reading' }]);
    await sent.promise;
    expect(send).toHaveBeenCalledWith('sales.csv', btoa('region,revenue\nNorth,42\n'));
    expect(u.items).toMatchObject([{ name: 'sales.csv', state: 'sending', percent: 100 }]);
    expect(u.busy).toBe(true);
    expect(attached).toEqual([]);
    reply.resolve({ path: '/data/uploads/x/sales.csv', name: 'sales.csv', size: 24 });
    await done;
    expect(attached).toEqual(['/data/uploads/x/sales.csv']);
    expect(u.items).toEqual([]);
    expect(u.busy).toBe(false);
  });

  it('refuse a file over the limit without reading or sending it', async () => {
    const send = vi.fn<Send>();
    const read = vi.fn();
    const u = new Uploads(send, vi.fn(), read);
    const big = { name: 'big.csv', size: MaxUploadBytes + 3 * (1 << 19) } as File;
    await u.add([big]);
    expect(read).not.toHaveBeenCalled();
    expect(send).not.toHaveBeenCalled();
    expect(u.items).toMatchObject([
      {
        name: 'big.csv',
        state: 'failed',
        error: expect.stringMatching(/^big\.csv is 21\.5 MB, over the 20 MB a file sent from the page may have\. Attach a smaller file/),
      },
    ]);
    expect(u.busy).toBe(false);
  });

  const refused = 'sales.csv arrived damaged (its content is not base64). Attach it again.';
  const unreadable = 'sales.csv could not be read. Check that it still exists and that you may read it, then attach it again.';
  it.each([
    { why: 'the backend refuses it', send: () => Promise.reject(new BackendError('invalid', refused)), read: undefined, message: refused },
    { why: 'the file cannot be read', send: vi.fn<Send>(), read: () => Promise.reject(new Error(unreadable)), message: unreadable },
  ])('say why when $why, until dismissed', async ({ send, read, message }) => {
    const attach = vi.fn();
    const u = new Uploads(send, attach, read);
    await u.add([csv()]);
    expect(attach).not.toHaveBeenCalled();
    expect(u.items).toMatchObject([{ name: 'sales.csv', state: 'failed', error: message }]);
    u.dismiss(u.items[0]!.id);
    expect(u.items).toEqual([]);
  });

  it('report how far a file is read', async () => {
    const reading = deferred<string>();
    let progress: (f: number) => void = () => {};
    const u = new Uploads(vi.fn<Send>(), vi.fn(), (_f, p) => ((progress = p), reading.promise));
    void u.add([csv()]);
    expect(u.items[0]).toMatchObject({ state: 'reading', percent: 0 });
    progress(0.426);
    expect(u.items[0]).toMatchObject({ state: 'reading', percent: 43 });
  });
});
