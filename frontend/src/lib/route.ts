// Where the window is, in the location hash: `#/s/<session>` for an open
// session, `#/s/<session>/t/<turn>` for a turn in it, `#/usage` for the
// Usage page, `#/review` for the review queue, `#/arena` for the Arena page (the leaderboard of votes), `#/evals` for the Evaluations page (its newest run),
// `#/evals/<run>` for one run and `#/evals/<run>/diff/<other>` for a run
// compared with another; `#/diff/<turnA>/<turnB>` for two turns compared step by step
// ("What changed"); `#/p/<project>` for the session list kept to one
// project (`#/p/-` for the sessions in none), beside a new session; no
// hash for a new, unsaved session. The hash survives a reload, makes a link to a turn, and
// gives back and forward something to move between.
//
// Only the hash is ever written: the page's path and query are kept as
// they are, so the browser mode's token handling (api.ts takes ?token= out
// of the address bar before the app starts) is not undone, and a URL with
// both (`/?token=…#/s/…`) works.

export type Route =
  | { kind: 'home' }
  | { kind: 'usage' }
  | { kind: 'arena' }
  /** The review queue: the turns of a review filter, one by one. */
  | { kind: 'review' }
  | { kind: 'session'; sessionId: string; turnId: string }
  /** The session list shows one project ('-': the sessions in none). */
  | { kind: 'project'; projectId: string }
  /** runId '' is the newest run; otherId, when set, is the run runId is compared with. */
  | { kind: 'evals'; runId: string; otherId: string }
  /** Two turns compared step by step: usually a re-run (turnB) and the turn it was re-run from (turnA). */
  | { kind: 'diff'; turnA: string; turnB: string };

export const home: Route = { kind: 'home' };
export const usagePage: Route = { kind: 'usage' };
export const arenaPage: Route = { kind: 'arena' };
export const reviewPage: Route = { kind: 'review' };
export const evalsPage: Route = { kind: 'evals', runId: '', otherId: '' };

/** Ids are UUIDs; anything else in a hash is refused before reaching the backend. */
const idPattern = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/**
 * Reads a location hash. A hash that is not a route of ours answers null
 * (the caller says so and goes home); an empty one is home.
 */
export function parseHash(hash: string): Route | null {
  const h = hash.replace(/^#/, '');
  if (h === '' || h === '/') return home;
  if (h === '/usage') return usagePage;
  if (h === '/arena') return arenaPage;
  if (h === '/review') return reviewPage;
  const parts = h.split('/');
  if (parts[0] === '' && parts[1] === 'evals') return parseEvals(parts.slice(2));
  if (parts[0] === '' && parts[1] === 'diff') return parseDiff(parts.slice(2));
  if (parts[0] === '' && parts[1] === 'p' && parts.length === 3) {
    const projectId = parts[2] === '-' ? '-' : decode(parts[2]);
    return projectId ? { kind: 'project', projectId } : null;
  }
  if (parts[0] !== '' || parts[1] !== 's') return null;
  const sessionId = decode(parts[2]);
  if (!sessionId) return null;
  if (parts.length === 3) return { kind: 'session', sessionId, turnId: '' };
  if (parts.length !== 5 || parts[3] !== 't') return null;
  const turnId = decode(parts[4]);
  return turnId ? { kind: 'session', sessionId, turnId } : null;
}

/** The hash for a route ('' for home). */
export function formatRoute(r: Route): string {
  if (r.kind === 'home') return '';
  if (r.kind === 'usage') return '#/usage';
  if (r.kind === 'arena') return '#/arena';
  if (r.kind === 'review') return '#/review';
  if (r.kind === 'project') return r.projectId === '-' ? '#/p/-' : `#/p/${encodeURIComponent(r.projectId)}`;
  if (r.kind === 'diff') return `#/diff/${encodeURIComponent(r.turnA)}/${encodeURIComponent(r.turnB)}`;
  if (r.kind === 'evals') {
    if (!r.runId) return '#/evals';
    const run = `#/evals/${encodeURIComponent(r.runId)}`;
    return r.otherId ? `${run}/diff/${encodeURIComponent(r.otherId)}` : run;
  }
  const s = `#/s/${encodeURIComponent(r.sessionId)}`;
  return r.turnId ? `${s}/t/${encodeURIComponent(r.turnId)}` : s;
}

export function sameRoute(a: Route, b: Route): boolean {
  return formatRoute(a) === formatRoute(b);
}

// The parts after `#/evals`: none, a run, or a run, "diff" and another run.
function parseEvals(parts: string[]): Route | null {
  if (parts.length === 0) return evalsPage;
  const runId = decode(parts[0]);
  if (!runId) return null;
  if (parts.length === 1) return { kind: 'evals', runId, otherId: '' };
  if (parts.length !== 3 || parts[1] !== 'diff') return null;
  const otherId = decode(parts[2]);
  return otherId ? { kind: 'evals', runId, otherId } : null;
}

// The parts after `#/diff`: two turns.
function parseDiff(parts: string[]): Route | null {
  if (parts.length !== 2) return null;
  const turnA = decode(parts[0]);
  const turnB = decode(parts[1]);
  return turnA && turnB ? { kind: 'diff', turnA, turnB } : null;
}

function decode(part: string | undefined): string {
  if (!part) return '';
  let s: string;
  try {
    s = decodeURIComponent(part);
  } catch {
    return '';
  }
  return idPattern.test(s) ? s : '';
}

/** What the history entry keeps besides the hash: the search terms a turn was opened for. */
export interface RouteState {
  terms?: string[];
}

/** The part of window the router uses (a fake in tests). */
export interface RouterWindow {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'pushState' | 'replaceState' | 'state'>;
  addEventListener(type: 'popstate' | 'hashchange', fn: () => void): void;
  removeEventListener(type: 'popstate' | 'hashchange', fn: () => void): void;
}

/**
 * The window's route: read, pushed (a place the person went to, which Back
 * returns from) or replaced (the same place under a new name, such as a
 * new session getting its id), and told when Back, Forward or an edited
 * address moves it.
 */
export class Router {
  private off: (() => void) | null = null;
  /** The hash the app last saw or wrote: events that do not change it are ignored. */
  private seen: string;

  constructor(private readonly win: RouterWindow) {
    this.seen = win.location.hash;
  }

  /** The current route, or null if the hash is not one of ours. */
  current(): Route | null {
    return parseHash(this.win.location.hash);
  }

  /** The search terms saved with the current history entry. */
  terms(): string[] {
    const st = this.win.history.state as RouteState | null;
    return Array.isArray(st?.terms) ? st.terms.filter((t): t is string => typeof t === 'string') : [];
  }

  /**
   * Moves to a route, as a new history entry unless replace (or unless the
   * hash now is not ours, which is not worth going back to).
   * Nothing when already there.
   */
  go(r: Route, opts: { replace?: boolean; terms?: string[] } = {}) {
    const here = this.current();
    const terms = opts.terms ?? [];
    if (here && sameRoute(here, r) && sameTerms(this.terms(), terms)) return;
    const state: RouteState | null = terms.length ? { terms } : null;
    const url = this.win.location.pathname + this.win.location.search + formatRoute(r);
    if (opts.replace || !here) this.win.history.replaceState(state, '', url);
    else this.win.history.pushState(state, '', url);
    this.seen = this.win.location.hash;
  }

  /**
   * Calls fn when Back, Forward or an edited address changes the hash.
   * Both popstate and hashchange may fire for one change: fn runs once.
   */
  listen(fn: (r: Route | null) => void): () => void {
    this.stop();
    const on = () => {
      const hash = this.win.location.hash;
      if (hash === this.seen) return;
      this.seen = hash;
      fn(this.current());
    };
    this.win.addEventListener('popstate', on);
    this.win.addEventListener('hashchange', on);
    this.off = () => {
      this.win.removeEventListener('popstate', on);
      this.win.removeEventListener('hashchange', on);
    };
    return () => this.stop();
  }

  stop() {
    this.off?.();
    this.off = null;
  }
}

function sameTerms(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}
