// Keeps the location hash (route.ts) and what the window shows in step:
// opening a session or a turn writes the hash, and a hash the page was
// loaded with, or that Back, Forward or the address bar brings, opens what
// it names. A hash naming nothing that exists says so and shows a new
// session, with the session list beside it. The Usage and Evaluations
// pages are places too: the main pane shows one (view) until a session is
// opened; which run the Evaluations page shows is in evalsAt.
import { get, writable, type Readable } from 'svelte/store';
import { evalsPage, home, sameRoute, usagePage, type Route, type Router } from '../route';
import type { ConversationStore, TurnTarget } from './conversation';

export interface NavigationDeps {
  conversation: ConversationStore;
  /** Null where there is no address (tests): navigation only opens things. */
  router: Router | null;
  /** Shows a new, unsaved session with the defaults. */
  showHome: () => void;
}

/** How an action changes the history: a new entry, the same entry renamed, or not at all (it came from the history). */
export type HistoryMode = 'push' | 'replace' | 'none';

/** What the main pane shows: the conversation (a session, or a new one), the Usage page or the Evaluations page. */
export type View = 'conversation' | 'usage' | 'evals';

/** The run the Evaluations page shows ('' for the newest), and the run it is compared with ('' for none). */
export interface EvalsPlace {
  runId: string;
  otherId: string;
}

export function createNavigation({ conversation, router, showHome }: NavigationDeps) {
  let stopListening: (() => void) | null = null;
  const view = writable<View>('conversation');
  const evalsAt = writable<EvalsPlace>({ runId: '', otherId: '' });

  function write(r: Route, mode: HistoryMode, terms?: string[]) {
    if (router && mode !== 'none') router.go(r, { replace: mode === 'replace', terms });
  }

  /** Replaces the route only if nothing moved it since `from` was written. */
  function correct(from: Route, to: Route) {
    const now = router?.current();
    if (router && now && sameRoute(now, from)) router.go(to, { replace: true });
  }

  async function open(sessionId: string, target: TurnTarget | null = null, mode: HistoryMode = 'push'): Promise<boolean> {
    const route: Route = { kind: 'session', sessionId, turnId: target?.turnId ?? '' };
    view.set('conversation');
    write(route, mode, target?.terms);
    const cur = get(conversation);
    if (target && cur.sessionId === sessionId && !cur.loading) {
      const found = await conversation.focusTurn(target);
      if (!found) correct(route, { ...route, turnId: '' });
      return true;
    }
    const res = await conversation.open(sessionId, target);
    if (!res.ok) {
      const why = get(conversation).error;
      showHome();
      conversation.setError(why);
      correct(route, home);
      return false;
    }
    if (target && !res.found) correct(route, { ...route, turnId: '' });
    return true;
  }

  // A route the address brought: open what it names, unless it is shown.
  async function follow(r: Route | null, initial: boolean) {
    if (r?.kind === 'usage') {
      view.set('usage');
      return;
    }
    if (r?.kind === 'evals') {
      evalsAt.set({ runId: r.runId, otherId: r.otherId });
      view.set('evals');
      return;
    }
    view.set('conversation');
    if (!r) {
      showHome();
      conversation.setError('This address does not name a session or a turn. Here is a new session; your sessions are in the list.');
      router?.go(home, { replace: true });
      return;
    }
    if (r.kind === 'home') {
      if (!initial) showHome();
      return;
    }
    const cur = get(conversation);
    if (!r.turnId && cur.sessionId === r.sessionId && !initial) {
      conversation.clearFocus();
      return;
    }
    await open(r.sessionId, r.turnId ? { turnId: r.turnId, terms: router?.terms() } : null, 'none');
  }

  return {
    open,
    view: { subscribe: view.subscribe } as Readable<View>,
    evalsAt: { subscribe: evalsAt.subscribe } as Readable<EvalsPlace>,

    /** Opens what the address names (the page was loaded or reloaded) and follows Back and Forward. */
    start() {
      if (!router || stopListening) return;
      stopListening = router.listen((r) => void follow(r, false));
      void follow(router.current(), true);
    },

    stop() {
      stopListening?.();
      stopListening = null;
    },

    /** A new session is shown. */
    home(mode: HistoryMode = 'push') {
      view.set('conversation');
      write(home, mode);
    },

    /** The Usage page is shown. */
    usage(mode: HistoryMode = 'push') {
      view.set('usage');
      write(usagePage, mode);
    },

    /** The Evaluations page is shown: a run ('' for the newest), compared with another when otherId is set. */
    evals(runId = '', otherId = '', mode: HistoryMode = 'push') {
      evalsAt.set({ runId, otherId: runId ? otherId : '' });
      view.set('evals');
      write(runId ? { kind: 'evals', runId, otherId } : evalsPage, mode);
    },

    /** The new session shown got its id (its first message): the same place, named. */
    adopted(sessionId: string) {
      write({ kind: 'session', sessionId, turnId: '' }, 'replace');
    },

    /** Unmarks the focused turn; the address names the session alone. */
    unfocus() {
      const s = get(conversation).session;
      conversation.clearFocus();
      if (s) write({ kind: 'session', sessionId: s.id, turnId: '' }, 'replace');
    },
  };
}

export type Navigation = ReturnType<typeof createNavigation>;
