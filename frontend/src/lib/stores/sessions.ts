// The sessions the window knows, held once: a paged list by last
// activity, grouped by date, plus the open session wherever it falls (the
// conversation names it by id and reads it here). Which of them have a
// running turn, and full-text search with a debounce. Evaluation sessions
// (a case's turn, kind "eval") are listed only while showEval is on, a
// preference the window keeps (prefs.ts).
import { derived, get, writable, type Readable } from 'svelte/store';
import { messageOf, type Backend } from '../api';
import { groupByDate, type DateGroup } from '../dates';
import { storagePrefs, type Prefs } from '../prefs';
import type { NewSession, Page, SearchHit, Session, TurnState } from '../types';

export interface SessionsState {
  items: Session[];
  nextCursor: string;
  loading: boolean;
  loaded: boolean;
  error: string;
}

export type SessionsBackend = Pick<Backend, 'listSessions' | 'createSession' | 'renameSession' | 'deleteSession' | 'updateSession'>;

const PAGE = 100;

const showEvalPref = 'sidebar.showEvalSessions';

export function createSessions(backend: SessionsBackend, now: () => Date = () => new Date(), prefs: Prefs = storagePrefs()) {
  const state = writable<SessionsState>({ items: [], nextCursor: '', loading: false, loaded: false, error: '' });
  /** Evaluation sessions are listed too. */
  const showEval = writable(prefs.flag(showEvalPref, false));
  /** The list's request: eval is sent only when asked for, as the Go side's default is to hide them. */
  const pageOf = (cursor = ''): Partial<Page> => ({ limit: PAGE, ...(cursor ? { cursor } : {}), ...(get(showEval) ? { eval: true } : {}) });
  const grouped: Readable<Array<{ group: DateGroup; items: Session[] }>> = derived(state, (s) => groupByDate(s.items, (x) => x.updated_at, now()));
  const live = writable<LiveTurns>({ started: new Map(), ended: new Set() });
  /**
   * The ids of the sessions with a running turn: the list's running_turn
   * (right after a reload), and what the events said since. A turn seen
   * ending stays ended, whatever an older answer of the list says.
   */
  const running: Readable<ReadonlySet<string>> = derived([state, live], ([s, l]) => {
    const out = new Set<string>();
    for (const x of s.items) if (x.running_turn && !l.ended.has(x.running_turn)) out.add(x.id);
    for (const [turn, session] of l.started) if (!l.ended.has(turn)) out.add(session);
    return out;
  });

  /** The open session: kept when a reload's first page does not reach it. */
  let held = '';

  function sortItems(items: Session[]) {
    return [...items].sort((a, b) => b.updated_at.localeCompare(a.updated_at) || b.id.localeCompare(a.id));
  }

  return {
    subscribe: state.subscribe,
    grouped,
    running,
    showEval: { subscribe: showEval.subscribe } as Readable<boolean>,

    /** Lists evaluation sessions too, or stops: kept as a preference, and the list is read again. */
    async setShowEval(on: boolean) {
      if (on === get(showEval)) return;
      showEval.set(on);
      prefs.setFlag(showEvalPref, on);
      await this.refresh();
    },

    /**
     * A turn's state as its events (or a turns_changed notice) tell it: a
     * running turn marks its session, any other state unmarks it for good.
     */
    noteTurn(sessionId: string, turnId: string, turnState: TurnState) {
      const l = get(live);
      if (!turnId || l.ended.has(turnId)) return;
      if (turnState === 'running') {
        if (!sessionId || l.started.has(turnId)) return;
        live.set({ started: new Map(l.started).set(turnId, sessionId), ended: l.ended });
      } else {
        const started = new Map(l.started);
        started.delete(turnId);
        live.set({ started, ended: new Set(l.ended).add(turnId) });
      }
    },

    async refresh() {
      state.update((s) => ({ ...s, loading: true, error: '' }));
      const withEval = get(showEval);
      try {
        const page = await backend.listSessions(pageOf());
        // An answer to the list as it was before showEval changed: the newer refresh sets it.
        if (withEval !== get(showEval)) return;
        const items = page.sessions ?? [];
        const open = held && !items.some((x) => x.id === held) ? get(state).items.find((x) => x.id === held) : undefined;
        state.set({ items: open ? sortItems([...items, open]) : items, nextCursor: page.next_cursor, loading: false, loaded: true, error: '' });
      } catch (err) {
        state.update((s) => ({ ...s, loading: false, loaded: true, error: messageOf(err) }));
      }
    },

    async loadMore() {
      const cur = get(state);
      if (!cur.nextCursor || cur.loading) return;
      state.update((s) => ({ ...s, loading: true }));
      const withEval = get(showEval);
      try {
        const page = await backend.listSessions(pageOf(cur.nextCursor));
        if (withEval !== get(showEval)) return;
        state.update((s) => {
          const known = new Set(s.items.map((x) => x.id));
          return { ...s, items: [...s.items, ...(page.sessions ?? []).filter((x) => !known.has(x.id))], nextCursor: page.next_cursor, loading: false };
        });
      } catch (err) {
        state.update((s) => ({ ...s, loading: false, error: messageOf(err) }));
      }
    },

    async create(req: NewSession): Promise<Session> {
      const s = await backend.createSession(req);
      this.upsert(s);
      return s;
    },

    /** Names the open session ('' for none), which a reload keeps. */
    hold(id: string) {
      held = id;
    },

    /** Adds or replaces a session, keeping the order by activity. */
    upsert(s: Session) {
      state.update((st) => ({ ...st, items: sortItems([s, ...st.items.filter((x) => x.id !== s.id)]) }));
    },

    /** Marks a session active now (a turn started or ended). */
    touch(id: string, at: string = now().toISOString()) {
      state.update((st) => ({ ...st, items: sortItems(st.items.map((x) => (x.id === id ? { ...x, updated_at: at } : x))) }));
    },

    async rename(id: string, title: string) {
      const trimmed = title.trim();
      const before = get(state).items.find((x) => x.id === id);
      if (!before || !trimmed || trimmed === before.title) return;
      state.update((st) => ({ ...st, items: st.items.map((x) => (x.id === id ? { ...x, title: trimmed } : x)) }));
      try {
        await backend.renameSession(id, trimmed);
      } catch (err) {
        state.update((st) => ({ ...st, items: st.items.map((x) => (x.id === id ? { ...x, title: before.title } : x)), error: messageOf(err) }));
        throw err;
      }
    },

    async remove(id: string) {
      await backend.deleteSession(id);
      state.update((st) => ({ ...st, items: st.items.filter((x) => x.id !== id) }));
    },

    /** Changes a session's settings: shown at once, put back if the backend refuses. */
    async update(s: Session) {
      const before = get(state).items.find((x) => x.id === s.id);
      const put = (v: Session) => state.update((st) => ({ ...st, items: st.items.map((x) => (x.id === v.id ? { ...x, ...v } : x)) }));
      put(s);
      try {
        await backend.updateSession(s);
      } catch (err) {
        if (before) put(before);
        throw err;
      }
    },

    clearError() {
      state.update((s) => ({ ...s, error: '' }));
    },
  };
}

export type SessionsStore = ReturnType<typeof createSessions>;

/** Turns seen running and seen ending since the app started. */
interface LiveTurns {
  /** Turn id → session id. */
  started: Map<string, string>;
  ended: Set<string>;
}

export interface SearchState {
  query: string;
  hits: SearchHit[];
  searching: boolean;
  error: string;
}

/** Search with a debounce; answers to an older query are dropped. */
export function createSearch(backend: Pick<Backend, 'searchSessions'>, delay = 200, limit = 30) {
  const state = writable<SearchState>({ query: '', hits: [], searching: false, error: '' });
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;

  async function run(q: string, gen: number) {
    try {
      const hits = (await backend.searchSessions(q, limit)) ?? [];
      if (gen === generation) state.set({ query: q, hits, searching: false, error: '' });
    } catch (err) {
      if (gen === generation) state.set({ query: q, hits: [], searching: false, error: messageOf(err) });
    }
  }

  return {
    subscribe: state.subscribe,
    set(query: string) {
      clearTimeout(timer);
      const gen = ++generation;
      const q = query.trim();
      if (!q) {
        state.set({ query: '', hits: [], searching: false, error: '' });
        return;
      }
      state.update((s) => ({ ...s, query, searching: true }));
      timer = setTimeout(() => void run(q, gen), delay);
    },
    clear() {
      this.set('');
    },
  };
}

export type SearchStore = ReturnType<typeof createSearch>;
