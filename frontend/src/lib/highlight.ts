// Marks words in rendered content without touching its markup: the ranges
// of the words are registered with the CSS Custom Highlight API and styled
// with ::highlight(search-match). The content (a turn, rendered by its own
// components, often re-rendered while it streams or loads) stays as it is;
// the ranges are found again when it changes. Where the API is missing,
// nothing is painted, and the node still says how many matches it holds
// (data-marks).

export const HIGHLIGHT_NAME = 'search-match';

/** The ranges of every case-insensitive occurrence of the terms in root's text, in document order. */
export function termRanges(root: Node, terms: readonly string[]): Range[] {
  const words = [...new Set(terms.map((t) => t.trim().toLowerCase()).filter(Boolean))].sort((a, b) => b.length - a.length);
  if (words.length === 0) return [];
  const doc = root.ownerDocument ?? (root as Document);
  const walker = doc.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) => (n.parentElement?.closest('script, style, [data-no-marks]') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  const out: Range[] = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = (n.nodeValue ?? '').toLowerCase();
    let at = 0;
    while (at < text.length) {
      // The earliest match from here; at one place, the longest word.
      let best = -1;
      let len = 0;
      for (const w of words) {
        const i = text.indexOf(w, at);
        if (i >= 0 && (best < 0 || i < best)) {
          best = i;
          len = w.length;
        }
      }
      if (best < 0) break;
      const r = doc.createRange();
      r.setStart(n, best);
      r.setEnd(n, best + len);
      out.push(r);
      at = best + len;
    }
  }
  return out;
}

interface HighlightRegistry {
  set(name: string, h: unknown): void;
  delete(name: string): void;
}

function registry(): { highlights: HighlightRegistry; Highlight: new (...r: Range[]) => unknown } | null {
  const css = (globalThis as { CSS?: { highlights?: HighlightRegistry } }).CSS;
  const H = (globalThis as { Highlight?: new (...r: Range[]) => unknown }).Highlight;
  return css?.highlights && H ? { highlights: css.highlights, Highlight: H } : null;
}

export interface MarkOptions {
  terms: readonly string[];
  /** A new value asks for onfirst again (the same turn was asked for again). */
  n?: number;
  /** Called once, with the first match, the first time there is one (to scroll it into view). */
  onfirst?: (first: Range) => void;
}

/** The node whose ranges the highlight holds now. */
let owner: object | null = null;

/**
 * A Svelte action: marks the terms in the node's text, again after every
 * change of the node's content (batched per frame). One node at a time
 * holds the highlight: the latest to paint; a node only clears its own.
 */
export function markTerms(node: HTMLElement, opts: MarkOptions) {
  let current = opts;
  let told = false;
  let pending = false;
  let dead = false;
  const me = {};
  const reg = registry();

  const release = () => {
    if (reg && owner === me) {
      reg.highlights.delete(HIGHLIGHT_NAME);
      owner = null;
    }
  };
  const paint = () => {
    pending = false;
    if (dead) return;
    const ranges = termRanges(node, current.terms);
    node.dataset.marks = String(ranges.length);
    if (reg && ranges.length) {
      reg.highlights.set(HIGHLIGHT_NAME, new reg.Highlight(...ranges));
      owner = me;
    } else {
      release();
    }
    if (!told && ranges[0] && current.onfirst) {
      told = true;
      current.onfirst(ranges[0]);
    }
  };
  const schedule = () => {
    if (pending) return;
    pending = true;
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(paint);
    else setTimeout(paint, 0);
  };
  // Watched only while there is something to mark: every turn has the
  // action, and a streaming turn changes on every frame.
  let observer: MutationObserver | null = null;
  const watch = () => {
    const want = current.terms.length > 0 && typeof MutationObserver === 'function';
    if (want && !observer) {
      observer = new MutationObserver(schedule);
      observer.observe(node, { subtree: true, childList: true, characterData: true });
    } else if (!want && observer) {
      observer.disconnect();
      observer = null;
    }
  };
  watch();
  paint();

  return {
    update(next: MarkOptions) {
      const changed = next.n !== current.n || next.terms.join('\u0000') !== current.terms.join('\u0000');
      current = next;
      if (changed) {
        told = false;
        watch();
        paint();
      }
    },
    destroy() {
      dead = true;
      observer?.disconnect();
      observer = null;
      release();
    },
  };
}
