import { describe, expect, it } from 'vitest';
import { filesFromDrop } from './dom';

function drop(files: File[], data: Record<string, string> = {}): DataTransfer {
  return { files, getData: (t: string) => data[t] ?? '' } as unknown as DataTransfer;
}

const file = (name: string, path?: string) => Object.assign(new File(['a\n1\n'], name), path ? { path } : {});

describe('filesFromDrop', () => {
  it.each([
    {
      name: 'in a browser every file is uploaded, and no path is taken: the browser may run elsewhere',
      dt: drop([file('a.csv'), file('b.csv', '/home/me/b.csv')], { 'text/uri-list': 'file:///home/me/a.csv' }),
      local: false,
      paths: [],
      uploads: ['a.csv', 'b.csv'],
    },
    {
      name: "in the window a file manager's list names the files: nothing to upload",
      dt: drop([file('a.csv'), file('b.csv')], { 'text/uri-list': 'file:///home/me/a.csv\nfile:///home/me/b%20c.csv' }),
      local: true,
      paths: ['/home/me/a.csv', '/home/me/b c.csv'],
      uploads: [],
    },
    {
      name: 'in the window a file with a path is attached by it, one without is uploaded',
      dt: drop([file('a.csv', '/data/a.csv'), file('b.csv')]),
      local: true,
      paths: ['/data/a.csv'],
      uploads: ['b.csv'],
    },
    {
      name: 'a dropped text path is taken in the window',
      dt: drop([], { 'text/plain': '/tmp/x.json' }),
      local: true,
      paths: ['/tmp/x.json'],
      uploads: [],
    },
  ])('$name', ({ dt, local, paths, uploads }) => {
    const got = filesFromDrop(dt, local);
    expect(got.paths).toEqual(paths);
    expect(got.files.map((f) => f.name)).toEqual(uploads);
  });

  it('takes nothing from no drop', () => {
    expect(filesFromDrop(null, true)).toEqual({ paths: [], files: [] });
  });
});
