// The open session and its turns, oldest first. Turns are paged in from
// the newest (listTurns cursors); the list shows summaries until a turn is
// on screen, when its full view is loaded through the pipeline. A turn
// asked for (a search hit, a link) is paged in with the turns after it,
// and becomes the focus: the list scrolls to it and marks it.
import { get, writable } from 'svelte/store';
import { messageOf, type Backend } from '../api';
import type { NewSession, Session, Turn } from '../types';

/** A turn to show: a search hit's, or a link's. */
export interface TurnTarget {
  turnId: string;
  /** Its number in the session, when known (a search hit's turn_seq). */
  seq?: number;
  /** The words to mark in it (a search's matches). */
  terms?: string[];
}

/** The turn the list scrolls to and marks. */
export interface Focus {
  turnId: string;
  terms: string[];
  /** Counts the requests, so asking for the same turn again scrolls again. */
  n: number;
}

export interface ConversationState {
  /** The open session, or null for a new one not yet created. */
  session: Session | null;
  /** What a new session will use. */
  draft: NewSession;
  turns: Turn[];
  nextCursor: string;
  loading: boolean;
  loadingOlder: boolean;
  error: string;
  focus: Focus | null;
}

export type ConversationBackend = Pick<Backend, 'getSession' | 'listTurns' | 'getTurn'>;

const PAGE = 50;
/** The most turns one listTurns answers (store.ListTurns). */
const MAX_PAGE = 1000;
/** Turns paged in above a turn asked for, so it does not open at the very top. */
const ABOVE = 10;

/** What opening a session found. */
export interface Opened {
  /** The session was read; false: it is gone (the error says so). */
  ok: boolean;
  /** The turn asked for is shown; false when none was asked for or it is not in the session. */
  found: boolean;
}

export function createConversation(backend: ConversationBackend) {
  const empty = (draft: NewSession = {}): ConversationState => ({ session: null, draft, turns: [], nextCursor: '', loading: false, loadingOlder: false, error: '', focus: null });
  const state = writable<ConversationState>(empty());
  let generation = 0;
  let focusCount = 0;

  const focusOf = (t: TurnTarget): Focus => ({ turnId: t.turnId, terms: t.terms ?? [], n: ++focusCount });

  /**
   * Pages in older turns until the target is among them. Its seq says how
   * many: the target and ABOVE turns before it, in as few pages as
   * listTurns allows. Without a seq it is read first (and must belong to
   * the session). Answers the turns, the cursor, and whether it is there.
   */
  async function reach(sessionId: string, turns: Turn[], cursor: string, target: TurnTarget, gen: number) {
    const has = () => turns.some((t) => t.id === target.turnId);
    let seq = target.seq ?? 0;
    if (!has() && !seq) {
      try {
        const d = await backend.getTurn(target.turnId, false);
        if (d.session_id === sessionId) seq = d.seq;
      } catch {
        // Not there: said by found.
      }
    }
    while (!has() && seq > 0 && cursor && gen === generation) {
      const lowest = turns[0]?.seq ?? seq + 1;
      if (seq >= lowest) break;
      const page = await backend.listTurns(sessionId, { limit: Math.min(MAX_PAGE, lowest - seq + ABOVE), cursor });
      const known = new Set(turns.map((t) => t.id));
      turns = [...[...(page.turns ?? [])].reverse().filter((t) => !known.has(t.id)), ...turns];
      cursor = page.next_cursor;
    }
    return { turns, cursor, found: has() };
  }

  const missing = (turnId: string) => `There is no turn ${turnId} in this session. It may have been deleted; the session is shown from its latest turn.`;

  return {
    subscribe: state.subscribe,

    /** Starts a new, unsaved session with these settings. */
    newDraft(draft: NewSession) {
      generation++;
      state.set(empty(draft));
    },

    /** Opens a session at its latest turn, or at the target turn. */
    async open(sessionId: string, target: TurnTarget | null = null): Promise<Opened> {
      const gen = ++generation;
      state.set({ ...empty(), loading: true });
      try {
        const [session, page] = await Promise.all([backend.getSession(sessionId), backend.listTurns(sessionId, { limit: PAGE })]);
        if (gen !== generation) return { ok: true, found: false };
        let turns = [...(page.turns ?? [])].reverse();
        let cursor = page.next_cursor;
        let found = false;
        if (target) ({ turns, cursor, found } = await reach(sessionId, turns, cursor, target, gen));
        if (gen !== generation) return { ok: true, found: false };
        const error = target && !found ? missing(target.turnId) : '';
        state.set({ ...empty(), session, turns, nextCursor: cursor, error, focus: found && target ? focusOf(target) : null });
        return { ok: true, found };
      } catch (err) {
        if (gen !== generation) return { ok: true, found: false };
        state.set({ ...empty(), error: messageOf(err) });
        return { ok: false, found: false };
      }
    },

    /** Scrolls the open session to one of its turns, paging it in if needed. */
    async focusTurn(target: TurnTarget): Promise<boolean> {
      const cur = get(state);
      if (!cur.session || cur.loadingOlder) return false;
      const gen = generation;
      state.update((s) => ({ ...s, loadingOlder: true }));
      try {
        const { turns, cursor, found } = await reach(cur.session.id, cur.turns, cur.nextCursor, target, gen);
        if (gen !== generation) return false;
        state.update((s) => {
          // What was paged in goes above; turns started meanwhile stay below.
          const have = new Set(s.turns.map((t) => t.id));
          const older = turns.filter((t) => !have.has(t.id));
          return {
            ...s,
            turns: [...older, ...s.turns],
            nextCursor: older.length ? cursor : s.nextCursor,
            loadingOlder: false,
            error: found ? '' : missing(target.turnId),
            focus: found ? focusOf(target) : s.focus,
          };
        });
        return found;
      } catch (err) {
        if (gen === generation) state.update((s) => ({ ...s, loadingOlder: false, error: messageOf(err) }));
        return false;
      }
    },

    /** Unmarks the focused turn. */
    clearFocus() {
      state.update((s) => (s.focus ? { ...s, focus: null } : s));
    },

    /** Pages in older turns; resolves to how many were added at the top. */
    async loadOlder(): Promise<number> {
      const cur = get(state);
      if (!cur.session || !cur.nextCursor || cur.loadingOlder) return 0;
      const gen = generation;
      state.update((s) => ({ ...s, loadingOlder: true }));
      try {
        const page = await backend.listTurns(cur.session.id, { limit: PAGE, cursor: cur.nextCursor });
        if (gen !== generation) return 0;
        const known = new Set(cur.turns.map((t) => t.id));
        const older = [...(page.turns ?? [])].reverse().filter((t) => !known.has(t.id));
        state.update((s) => ({ ...s, turns: [...older, ...s.turns], nextCursor: page.next_cursor, loadingOlder: false }));
        return older.length;
      } catch (err) {
        if (gen === generation) state.update((s) => ({ ...s, loadingOlder: false, error: messageOf(err) }));
        return 0;
      }
    },

    /**
     * Loads the newest page of the open session's turns again, keeping the
     * older ones already paged in: turns changed with no event (a dead
     * process's turn was marked interrupted).
     */
    async reloadTurns() {
      const cur = get(state);
      if (!cur.session) return;
      const gen = generation;
      try {
        const page = await backend.listTurns(cur.session.id, { limit: PAGE });
        if (gen !== generation) return;
        const fresh = [...(page.turns ?? [])].reverse();
        const first = fresh[0]?.seq ?? Infinity;
        state.update((s) => ({ ...s, turns: [...s.turns.filter((t) => t.seq < first), ...fresh] }));
      } catch (err) {
        if (gen === generation) state.update((s) => ({ ...s, error: messageOf(err) }));
      }
    },

    /** The session was created (first message of a draft) or changed. */
    adopt(session: Session) {
      state.update((s) => ({ ...s, session }));
    },

    setDraft(patch: Partial<NewSession>) {
      state.update((s) => ({ ...s, draft: { ...s.draft, ...patch } }));
    },

    /** Appends a turn just started in the open session. */
    addTurn(turn: Turn) {
      state.update((s) => (s.session?.id === turn.session_id && !s.turns.some((t) => t.id === turn.id) ? { ...s, turns: [...s.turns, turn] } : s));
    },

    updateTurn(id: string, patch: Partial<Turn>) {
      state.update((s) => (s.turns.some((t) => t.id === id) ? { ...s, turns: s.turns.map((t) => (t.id === id ? { ...t, ...patch } : t)) } : s));
    },

    clearError() {
      state.update((s) => ({ ...s, error: '' }));
    },

    /** Says what went wrong with what is shown (an address naming nothing). */
    setError(error: string) {
      state.update((s) => ({ ...s, error }));
    },
  };
}

export type ConversationStore = ReturnType<typeof createConversation>;
