// Math for the virtualized turn list: items have measured heights where
// they were rendered and an estimate elsewhere; offsets are prefix sums and
// the visible range is found by binary search, so 5,000 items cost
// microseconds per scroll.

export interface Range {
  start: number;
  /** Exclusive. */
  end: number;
  padTop: number;
  padBottom: number;
}

/** offsets[i] is the top of item i; offsets[n] the total height. */
export function offsetsOf(keys: readonly string[], heights: ReadonlyMap<string, number>, estimate: (i: number) => number): Float64Array {
  const out = new Float64Array(keys.length + 1);
  for (let i = 0; i < keys.length; i++) out[i + 1] = out[i]! + (heights.get(keys[i]!) ?? estimate(i));
  return out;
}

/** The index of the item containing y (clamped). */
export function indexAt(offsets: Float64Array, y: number): number {
  const n = offsets.length - 1;
  if (n <= 0) return 0;
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The items to render for a viewport, with overscan in pixels. */
export function visibleRange(offsets: Float64Array, scrollTop: number, viewport: number, overscan = 600): Range {
  const n = offsets.length - 1;
  if (n <= 0) return { start: 0, end: 0, padTop: 0, padBottom: 0 };
  const total = offsets[n]!;
  const start = indexAt(offsets, Math.max(0, scrollTop - overscan));
  const end = Math.min(n, indexAt(offsets, scrollTop + viewport + overscan) + 1);
  return { start, end, padTop: offsets[start]!, padBottom: total - offsets[end]! };
}

/** A height guess for a turn from its text, before it is measured. */
export function estimateTurnHeight(userMessage: string, answer: string): number {
  const lines = (s: string) => Math.ceil(s.length / 90) + (s.match(/\n/g)?.length ?? 0);
  return 96 + 22 * (lines(userMessage) + lines(answer));
}

/** How near the bottom (px) counts as at the bottom. */
export const BOTTOM_SLACK = 48;

export interface ScrollSeen {
  /** Whether the list was following the bottom before this scroll event. */
  following: boolean;
  scrollTop: number;
  scrollHeight: number;
  clientHeight: number;
  /** Where the list last put scrollTop itself (following, anchoring), or null. */
  ownTop: number | null;
}

/**
 * Whether the list follows the bottom after a scroll event. At the bottom
 * it does. Elsewhere, a scroll the list made itself (it set scrollTop to
 * ownTop and the event reports that) keeps what it did before: the event
 * fires a frame later, and a stream may have grown the content below by
 * more than the slack meanwhile, which is not the person scrolling away.
 * Any other scroll away from the bottom is the person's: it stops following.
 */
export function followsAfterScroll(s: ScrollSeen): boolean {
  if (s.scrollHeight - s.scrollTop - s.clientHeight < BOTTOM_SLACK) return true;
  if (s.ownTop !== null && Math.abs(s.scrollTop - s.ownTop) < 1) return s.following;
  return false;
}
