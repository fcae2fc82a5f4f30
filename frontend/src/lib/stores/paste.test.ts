// What a paste holds: a browser lists a copied image in files; some
// WebKit builds offer it only as an item of kind file.
import { describe, expect, it } from 'vitest';
import { pastedFiles } from './app.svelte';

const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'image.png', { type: 'image/png' });

function transfer(files: File[], items: Array<{ kind: string; file: File | null }>): DataTransfer {
  return { files, items: items.map((i) => ({ kind: i.kind, getAsFile: () => i.file })) } as unknown as DataTransfer;
}

describe('pastedFiles', () => {
  it('takes the files when there are some', () => {
    expect(pastedFiles(transfer([png], [{ kind: 'file', file: png }]))).toEqual([png]);
  });
  it('reads items of kind file when files is empty', () => {
    expect(
      pastedFiles(
        transfer(
          [],
          [
            { kind: 'string', file: null },
            { kind: 'file', file: png },
          ],
        ),
      ),
    ).toEqual([png]);
  });
  it('gives nothing for a paste of text', () => {
    expect(pastedFiles(transfer([], [{ kind: 'string', file: null }]))).toEqual([]);
    expect(pastedFiles(null)).toEqual([]);
  });
});
