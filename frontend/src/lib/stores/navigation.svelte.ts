// Keeps the location hash (route.ts) and what the window shows in step:
// opening a session or a turn writes the hash, and a hash the page was
// loaded with, or that Back, Forward or the address bar brings, opens what
// it names. A hash naming nothing that exists says so and shows a new
// session, with the session list beside it. The Usage and Evaluations
// pages are places too: the main pane shows one (view) until a session is
// opened; which run the Evaluations page shows is in evalsAt. A project
// (`#/p/<id>`) keeps the session list to its sessions beside a new
// session; the list stays so while sessions open, until another project
// or the whole list is asked for (or Back reaches a place without one).
import { arenaPage, evalsPage, home, reviewPage, sameRoute, usagePage, type Route, type Router } from '../route';
import type { ConversationStore, TurnTarget } from './conversation.svelte';

export interface NavigationDeps {
  conversation: ConversationStore;
  /** Null where there is no address (tests): navigation only opens things. */
  router: Router | null;
  /** Shows a new, unsaved session with the defaults. */
  showHome: () => void;
  /** The Evaluations page's place (evalsAt) changed. */
  placeChanged?: () => void;
  /** The session list is to show one project ('' for all of them). */
  selectProject?: (projectId: string) => void;
}

/** How an action changes the history: a new entry, the same entry renamed, or not at all (it came from the history). */
export type HistoryMode = 'push' | 'replace' | 'none';

/** What the main pane shows: the conversation (a session, or a new one), the Usage page or the Evaluations page. */
export type View = 'conversation' | 'usage' | 'evals' | 'arena' | 'diff' | 'review';

/** The run the Evaluations page shows ('' for the newest), and the run it is compared with ('' for none). */
export interface EvalsPlace {
  runId: string;
  otherId: string;
}

/** The two turns the "What changed" view compares: turnB (usually a re-run) against turnA. */
export interface DiffPlace {
  turnA: string;
  turnB: string;
}

export class Navigation {
  #conversation: ConversationStore;
  #router: Router | null;
  #showHome: () => void;
  #placeChanged: () => void;
  #selectProject: (projectId: string) => void;
  #stopListening: (() => void) | null = null;
  /** What the main pane shows. */
  view = $state<View>('conversation');
  /** The run the Evaluations page shows, and the run it is compared with. */
  evalsAt = $state.raw<EvalsPlace>({ runId: '', otherId: '' });
  /** The two turns the "What changed" view compares (view 'diff'). */
  diffAt = $state.raw<DiffPlace>({ turnA: '', turnB: '' });

  constructor({ conversation, router, showHome, placeChanged, selectProject }: NavigationDeps) {
    this.#conversation = conversation;
    this.#placeChanged = placeChanged ?? (() => {});
    this.#selectProject = selectProject ?? (() => {});
    this.#router = router;
    this.#showHome = showHome;
  }

  #write(r: Route, mode: HistoryMode, terms?: string[]) {
    if (this.#router && mode !== 'none') this.#router.go(r, { replace: mode === 'replace', terms });
  }

  /** Replaces the route only if nothing moved it since `from` was written. */
  #correct(from: Route, to: Route) {
    const now = this.#router?.current();
    if (this.#router && now && sameRoute(now, from)) this.#router.go(to, { replace: true });
  }

  async open(sessionId: string, target: TurnTarget | null = null, mode: HistoryMode = 'push'): Promise<boolean> {
    const conversation = this.#conversation;
    const route: Route = { kind: 'session', sessionId, turnId: target?.turnId ?? '' };
    this.view = 'conversation';
    this.#write(route, mode, target?.terms);
    if (target && conversation.sessionId === sessionId && !conversation.loading) {
      const found = await conversation.focusTurn(target);
      if (!found) this.#correct(route, { ...route, turnId: '' });
      return true;
    }
    const res = await conversation.open(sessionId, target);
    if (!res.ok) {
      const why = conversation.error;
      this.#showHome();
      conversation.setError(why);
      this.#correct(route, home);
      return false;
    }
    if (target && !res.found) this.#correct(route, { ...route, turnId: '' });
    return true;
  }

  // A route the address brought: open what it names, unless it is shown.
  async #follow(r: Route | null, initial: boolean) {
    const router = this.#router;
    if (r?.kind === 'usage') {
      this.view = 'usage';
      return;
    }
    if (r?.kind === 'arena') {
      this.view = 'arena';
      return;
    }
    if (r?.kind === 'review') {
      this.view = 'review';
      return;
    }
    if (r?.kind === 'diff') {
      this.diffAt = { turnA: r.turnA, turnB: r.turnB };
      this.view = 'diff';
      return;
    }
    if (r?.kind === 'evals') {
      this.evalsAt = { runId: r.runId, otherId: r.otherId };
      this.view = 'evals';
      this.#placeChanged();
      return;
    }
    this.view = 'conversation';
    if (r?.kind === 'project') {
      this.#selectProject(r.projectId);
      if (!initial) this.#showHome();
      return;
    }
    if (!r) {
      this.#showHome();
      this.#conversation.setError('This address does not name a session or a turn. Here is a new session; your sessions are in the list.');
      router?.go(home, { replace: true });
      return;
    }
    if (r.kind === 'home') {
      this.#selectProject('');
      if (!initial) this.#showHome();
      return;
    }
    if (!r.turnId && this.#conversation.sessionId === r.sessionId && !initial) {
      this.#conversation.clearFocus();
      return;
    }
    await this.open(r.sessionId, r.turnId ? { turnId: r.turnId, terms: router?.terms() } : null, 'none');
  }

  /** Opens what the address names (the page was loaded or reloaded) and follows Back and Forward. */
  start() {
    const router = this.#router;
    if (!router || this.#stopListening) return;
    this.#stopListening = router.listen((r) => void this.#follow(r, false));
    void this.#follow(router.current(), true);
  }

  stop() {
    this.#stopListening?.();
    this.#stopListening = null;
  }

  /** A new session is shown. */
  home(mode: HistoryMode = 'push') {
    this.view = 'conversation';
    this.#write(home, mode);
  }

  /** The session list shows one project ('' for all of them) beside a new session. */
  project(projectId: string, mode: HistoryMode = 'push') {
    this.view = 'conversation';
    this.#selectProject(projectId);
    this.#showHome();
    this.#write(projectId ? { kind: 'project', projectId } : home, mode);
  }

  /** The Usage page is shown. */
  usage(mode: HistoryMode = 'push') {
    this.view = 'usage';
    this.#write(usagePage, mode);
  }

  /** The Arena page is shown: the leaderboard of side-by-side votes. */
  arena(mode: HistoryMode = 'push') {
    this.view = 'arena';
    this.#write(arenaPage, mode);
  }

  /** The review queue is shown: the turns of a review filter, one by one. */
  review(mode: HistoryMode = 'push') {
    this.view = 'review';
    this.#write(reviewPage, mode);
  }

  /** The "What changed" view is shown: turnB compared with turnA step by step. */
  diff(turnA: string, turnB: string, mode: HistoryMode = 'push') {
    this.diffAt = { turnA, turnB };
    this.view = 'diff';
    this.#write({ kind: 'diff', turnA, turnB }, mode);
  }

  /** The Evaluations page is shown: a run ('' for the newest), compared with another when otherId is set. */
  evals(runId = '', otherId = '', mode: HistoryMode = 'push') {
    this.evalsAt = { runId, otherId: runId ? otherId : '' };
    this.view = 'evals';
    this.#placeChanged();
    this.#write(runId ? { kind: 'evals', runId, otherId } : evalsPage, mode);
  }

  /** The new session shown got its id (its first message): the same place, named. */
  adopted(sessionId: string) {
    this.#write({ kind: 'session', sessionId, turnId: '' }, 'replace');
  }

  /** Unmarks the focused turn; the address names the session alone. */
  unfocus() {
    const s = this.#conversation.session;
    this.#conversation.clearFocus();
    if (s) this.#write({ kind: 'session', sessionId: s.id, turnId: '' }, 'replace');
  }
}
