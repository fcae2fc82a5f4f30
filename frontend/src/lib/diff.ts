// A small word-level diff for comparing two answers: longest common
// subsequence over words and the spaces between them, after trimming the
// common prefix and suffix. Past a size limit the middle is shown as
// replaced whole rather than spending seconds on it.

export type DiffOp = { type: 'same' | 'add' | 'del'; text: string };

const MAX_CELLS = 4_000_000;

/** Splits text into words, runs of spaces and single punctuation marks. */
export function tokenize(s: string): string[] {
  return s.match(/\s+|[\p{L}\p{N}_'’-]+|[^\s\p{L}\p{N}_]/gu) ?? [];
}

/** The operations that turn a into b, adjacent ones of a type merged. */
export function wordDiff(a: string, b: string): DiffOp[] {
  const x = tokenize(a);
  const y = tokenize(b);
  let pre = 0;
  while (pre < x.length && pre < y.length && x[pre] === y[pre]) pre++;
  let suf = 0;
  while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
  const xs = x.slice(pre, x.length - suf);
  const ys = y.slice(pre, y.length - suf);
  const ops: DiffOp[] = [];
  push(ops, 'same', x.slice(0, pre).join(''));
  for (const op of middle(xs, ys)) push(ops, op.type, op.text);
  push(ops, 'same', x.slice(x.length - suf).join(''));
  return ops;
}

function middle(xs: string[], ys: string[]): DiffOp[] {
  const n = xs.length;
  const m = ys.length;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    return [
      { type: 'del', text: xs.join('') },
      { type: 'add', text: ys.join('') },
    ];
  }
  // lcs[i][j] = LCS length of xs[i:] and ys[j:], in one flat array.
  const w = m + 1;
  const lcs = new Uint32Array((n + 1) * w);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * w + j] = xs[i] === ys[j] ? lcs[(i + 1) * w + j + 1]! + 1 : Math.max(lcs[(i + 1) * w + j]!, lcs[i * w + j + 1]!);
    }
  }
  const out: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (xs[i] === ys[j]) {
      push(out, 'same', xs[i++]!);
      j++;
    } else if (lcs[(i + 1) * w + j]! >= lcs[i * w + j + 1]!) {
      push(out, 'del', xs[i++]!);
    } else {
      push(out, 'add', ys[j++]!);
    }
  }
  while (i < n) push(out, 'del', xs[i++]!);
  while (j < m) push(out, 'add', ys[j++]!);
  return out;
}

function push(ops: DiffOp[], type: DiffOp['type'], text: string) {
  if (!text) return;
  const last = ops[ops.length - 1];
  if (last && last.type === type) last.text += text;
  else ops.push({ type, text });
}

/** How much of the text changed, 0..1, by characters. */
export function changeRatio(ops: readonly DiffOp[]): number {
  let changed = 0;
  let total = 0;
  for (const op of ops) {
    total += op.text.length;
    if (op.type !== 'same') changed += op.text.length;
  }
  return total === 0 ? 0 : changed / total;
}
