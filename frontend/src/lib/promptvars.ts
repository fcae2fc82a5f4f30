// The {{variables}} of a saved prompt, read and filled as the Go side does
// (backend/store/promptvars): a name of letters, digits, _ and -, spaces
// around it trimmed; "{{{{", an unclosed "{{", "{{}}" and "{{two words}}"
// are text as written. Both sides are tested on
// backend/store/promptvars/testdata/cases.json.

const nameRe = /^[\p{L}\p{Nd}_-]+$/u;

type Piece = { text: string; name?: string };

/** The pieces of body: text, and variables with their names. */
function scan(body: string): Piece[] {
  const out: Piece[] = [];
  let rest = body;
  while (rest) {
    const i = rest.indexOf('{{');
    if (i < 0) {
      out.push({ text: rest });
      break;
    }
    if (rest.startsWith('{{{{', i)) {
      out.push({ text: rest.slice(0, i + 4) });
      rest = rest.slice(i + 4);
      continue;
    }
    const end = rest.indexOf('}}', i + 2);
    if (end < 0) {
      out.push({ text: rest });
      break;
    }
    const name = rest.slice(i + 2, end).trim();
    if (!nameRe.test(name)) {
      out.push({ text: rest.slice(0, i + 2) });
      rest = rest.slice(i + 2);
      continue;
    }
    if (i > 0) out.push({ text: rest.slice(0, i) });
    out.push({ text: rest.slice(i, end + 2), name });
    rest = rest.slice(end + 2);
  }
  return out;
}

/** The names of body's variables, each once, in the order they first appear. */
export function variables(body: string): string[] {
  const names: string[] = [];
  for (const p of scan(body)) if (p.name !== undefined && !names.includes(p.name)) names.push(p.name);
  return names;
}

/** A prompt's variables that have no value. */
export class MissingValues extends Error {
  constructor(readonly names: string[]) {
    super(`The prompt needs a value for ${names.map((n) => `{{${n}}}`).join(', ')}.`);
  }
}

/** body with each variable replaced by its value; a value is put in as it is. */
export function fill(body: string, values: Record<string, string>): string {
  const missing: string[] = [];
  const out = scan(body).map((p) => {
    if (p.name === undefined) return p.text;
    if (Object.hasOwn(values, p.name)) return values[p.name]!;
    if (!missing.includes(p.name)) missing.push(p.name);
    return '';
  });
  if (missing.length) throw new MissingValues(missing);
  return out.join('');
}
