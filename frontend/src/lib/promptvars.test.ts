// The UI reads and fills {{variables}} as the Go side does: both run the
// cases in backend/store/promptvars/testdata/cases.json.
import { expect, it } from 'vitest';
import { fill, MissingValues, variables } from './promptvars';

interface Case {
  name: string;
  body: string;
  vars: string[];
  values: Record<string, string>;
  want?: string;
  missing?: string[];
}

async function cases(): Promise<Case[]> {
  // Read with Node's fs: the file is outside what Vite serves (see About.test.ts).
  const fsModule = 'node:fs';
  const { readFileSync } = (await import(/* @vite-ignore */ fsModule)) as { readFileSync(path: string, encoding: 'utf8'): string };
  const path = new URL('../../../backend/store/promptvars/testdata/cases.json', import.meta.url).pathname.replace(/^\/@fs\//, '/');
  return JSON.parse(readFileSync(path, 'utf8')) as Case[];
}

it('reads and fills every shared case as the Go side does', async () => {
  const all = await cases();
  expect(all.length).toBeGreaterThan(10);
  for (const c of all) {
    expect(variables(c.body), c.name).toEqual(c.vars);
    if (c.missing) {
      let err: unknown;
      try {
        fill(c.body, c.values);
      } catch (e) {
        err = e;
      }
      expect(err, c.name).toBeInstanceOf(MissingValues);
      expect((err as MissingValues).names, c.name).toEqual(c.missing);
    } else {
      expect(fill(c.body, c.values), c.name).toBe(c.want);
    }
  }
});
