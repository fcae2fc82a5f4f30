// Citations in a rendered answer. A model cites what a tool gave it as
// [n] or [n, m]; the turn records what it was given (TurnView.sources).
// The answer's HTML is sanitized first (lib/markdown.ts), and only then
// are citations found in its text nodes and turned into our own controls,
// built with the DOM (never from HTML), so nothing the model writes can
// pose as one: a button is a citation only if linkCitations made it (the
// WeakMap below), whatever its attributes say. A number the turn was given
// becomes a button that opens the passage; one it was never given is
// marked unverified. Text inside code, links and preformatted blocks is
// left alone, and so is a bracket right after a word (a[1] is an index).
import { getContext, setContext } from 'svelte';
import type { Source } from './types';

/** The pattern of one citation: [1], [1, 2], [1,2,3] (numbers of 1 to 4 digits). */
const CITE = /\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\]/g;

/** Where a citation is never looked for. */
const SKIP = new Set(['CODE', 'PRE', 'A', 'KBD', 'BUTTON', 'SCRIPT', 'STYLE']);

export const UNVERIFIED = 'unverified: no such source was given';

/** The numbers our citation buttons open; nothing else counts as one. */
const made = new WeakMap<Element, number>();

/** The source number a citation button opens, or undefined for any other element. */
export function citeOf(el: Element | null | undefined): number | undefined {
  return el ? made.get(el) : undefined;
}

/** One part of a text: plain text, or a citation's numbers. */
export type Part = { text: string } | { cite: number[] };

/** Splits text at its citations ([n], [n, m]); a bracket right after a letter, digit or "]" is not one. */
export function splitCitations(text: string): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const m of text.matchAll(CITE)) {
    const at = m.index;
    if (at > 0 && /[\p{L}\p{N}_\]]/u.test(text[at - 1]!)) continue;
    if (at > last) parts.push({ text: text.slice(last, at) });
    parts.push({ cite: m[1]!.split(',').map((n) => Number(n.trim())) });
    last = at + m[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

/** What a citation button says to a screen reader: "Source 2: report.pdf, page 3". */
export function citeLabel(s: Source): string {
  return `Source ${s.n}: ${s.document}${s.page ? `, page ${s.page}` : ''}`;
}

/**
 * Turns the citations in root's text into buttons (a source the turn was
 * given) and unverified marks (a number it was not); returns how many
 * numbers it found.
 */
export function linkCitations(root: Node, sources: ReadonlyMap<number, Source>): number {
  const doc = root.ownerDocument ?? (root as Document);
  const texts: Text[] = [];
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode(n) {
      for (let p = n.parentElement; p && p !== root; p = p.parentElement) if (SKIP.has(p.tagName)) return NodeFilter.FILTER_REJECT;
      return n.nodeValue && n.nodeValue.includes('[') ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_SKIP;
    },
  });
  for (let n = walker.nextNode(); n; n = walker.nextNode()) texts.push(n as Text);
  let found = 0;
  for (const t of texts) {
    const parts = splitCitations(t.nodeValue ?? '');
    if (!parts.some((p) => 'cite' in p)) continue;
    const frag = doc.createDocumentFragment();
    for (const p of parts) {
      if ('text' in p) {
        frag.append(doc.createTextNode(p.text));
        continue;
      }
      const group = doc.createElement('span');
      group.className = 'cites';
      group.append('[');
      p.cite.forEach((n, i) => {
        if (i > 0) group.append(', ');
        group.append(citeNode(doc, n, sources.get(n)));
        found++;
      });
      group.append(']');
      frag.append(group);
    }
    t.replaceWith(frag);
  }
  return found;
}

function citeNode(doc: Document, n: number, source: Source | undefined): Element {
  if (source) {
    const b = doc.createElement('button');
    b.type = 'button';
    b.className = 'cite';
    b.textContent = String(n);
    b.title = `${source.document}${source.page ? ` · page ${source.page}` : ''}${source.heading ? ` · ${source.heading}` : ''}`;
    b.setAttribute('aria-label', citeLabel(source));
    made.set(b, n);
    return b;
  }
  const s = doc.createElement('span');
  s.className = 'cite-unverified';
  s.title = UNVERIFIED;
  s.append(String(n));
  const mark = doc.createElement('span');
  mark.className = 'cite-mark';
  mark.setAttribute('aria-hidden', 'true');
  mark.textContent = '?';
  const said = doc.createElement('span');
  said.className = 'visually-hidden';
  said.textContent = ` (${UNVERIFIED})`;
  s.append(mark, said);
  return s;
}

/** The sources by number (the first of a number wins). */
export function sourcesByNumber(sources: readonly Source[]): Map<number, Source> {
  const m = new Map<number, Source>();
  for (const s of sources) if (!m.has(s.n)) m.set(s.n, s);
  return m;
}

/** Where a source sits: "page 3 · Results › Revenue" ("" when neither is known). */
export function placeOf(s: { page?: number; heading?: string }): string {
  return [s.page ? `page ${s.page}` : '', s.heading ?? ''].filter(Boolean).join(' · ');
}

/** What a turn gives the answers it renders: its sources, and how to open one. */
export interface CiteContext {
  /** The turn's sources by number; empty when it was given none (then nothing is linked). */
  readonly sources: ReadonlyMap<number, Source>;
  open(n: number): void;
}

const KEY = Symbol('citations');

/** Called by a turn: the Markdown inside it links citations through ctx. */
export function setCiteContext(ctx: CiteContext): void {
  setContext(KEY, ctx);
}

/** The turn's citation context, if the component is inside one. */
export function getCiteContext(): CiteContext | undefined {
  return getContext<CiteContext | undefined>(KEY);
}
