// Which session is open and the order of its turns, oldest first. It
// holds ids only: the session itself is in the sessions store, each
// turn's row and view in the turn store (turns.svelte.ts). Turns are paged
// in from the newest (listTurns cursors); the list shows rows until a
// turn is on screen, when its full view is loaded. A turn asked for (a
// search hit, a link) is paged in with the turns after it, and becomes
// the focus: the list scrolls to it and marks it.
import { derived, get, writable, type Readable } from 'svelte/store';
import { messageOf, type Backend } from '../api';
import type { NewSession, Session, Turn } from '../types';
import type { SessionsStore } from './sessions';
import type { TurnStore } from './turns.svelte';

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

interface Held {
  /** The open session's id, or '' for a new one not yet created. */
  sessionId: string;
  /** What a new session will use. */
  draft: NewSession;
  /** The open session's turns that are paged in, oldest first. */
  ids: string[];
  nextCursor: string;
  loading: boolean;
  loadingOlder: boolean;
  error: string;
  focus: Focus | null;
}

export interface ConversationState extends Held {
  /** The open session (from the sessions store), or null for a new one not yet created. */
  session: Session | null;
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

export function createConversation(backend: ConversationBackend, sessions: Pick<SessionsStore, 'subscribe' | 'upsert' | 'hold'>, turns: TurnStore) {
  const empty = (draft: NewSession = {}): Held => ({ sessionId: '', draft, ids: [], nextCursor: '', loading: false, loadingOlder: false, error: '', focus: null });
  const state = writable<Held>(empty());
  const shown: Readable<ConversationState> = derived([state, sessions], ([c, s]) => ({ ...c, session: (c.sessionId && s.items.find((x) => x.id === c.sessionId)) || null }));
  let generation = 0;
  let focusCount = 0;

  const focusOf = (t: TurnTarget): Focus => ({ turnId: t.turnId, terms: t.terms ?? [], n: ++focusCount });
  const idsOf = (rows: readonly Turn[]) => rows.map((t) => t.id);
  const seqOf = (id: string | undefined) => (id ? turns.summary(id)?.seq : undefined);

  /**
   * Pages in older turns until the target is among them. Its seq says how
   * many: the target and ABOVE turns before it, in as few pages as
   * listTurns allows. Without a seq it is read first (and must belong to
   * the session). Answers the older rows paged in, the cursor, and whether
   * it is there.
   */
  async function reach(sessionId: string, ids: readonly string[], cursor: string, target: TurnTarget, gen: number) {
    const known = new Set(ids);
    const older: Turn[] = [];
    const has = () => known.has(target.turnId);
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
      const lowest = older[0]?.seq ?? seqOf(ids[0]) ?? seq + 1;
      if (seq >= lowest) break;
      const page = await backend.listTurns(sessionId, { limit: Math.min(MAX_PAGE, lowest - seq + ABOVE), cursor });
      const fresh = [...(page.turns ?? [])].reverse().filter((t) => !known.has(t.id));
      for (const t of fresh) known.add(t.id);
      older.unshift(...fresh);
      cursor = page.next_cursor;
    }
    return { older, cursor, found: has() };
  }

  const missing = (turnId: string) => `There is no turn ${turnId} in this session. It may have been deleted; the session is shown from its latest turn.`;

  return {
    subscribe: shown.subscribe,

    /** Starts a new, unsaved session with these settings. */
    newDraft(draft: NewSession) {
      generation++;
      sessions.hold('');
      turns.open('', []);
      state.set(empty(draft));
    },

    /** Opens a session at its latest turn, or at the target turn. */
    async open(sessionId: string, target: TurnTarget | null = null): Promise<Opened> {
      const gen = ++generation;
      state.set({ ...empty(), loading: true });
      try {
        const [session, page] = await Promise.all([backend.getSession(sessionId), backend.listTurns(sessionId, { limit: PAGE })]);
        if (gen !== generation) return { ok: true, found: false };
        const rows = [...(page.turns ?? [])].reverse();
        turns.open(sessionId, rows);
        let ids = idsOf(rows);
        let cursor = page.next_cursor;
        let found = false;
        if (target) {
          const r = await reach(sessionId, ids, cursor, target, gen);
          if (gen !== generation) return { ok: true, found: false };
          turns.remember(r.older);
          ids = [...idsOf(r.older), ...ids];
          cursor = r.cursor;
          found = r.found;
        }
        const error = target && !found ? missing(target.turnId) : '';
        sessions.upsert(session);
        sessions.hold(sessionId);
        state.set({ ...empty(), sessionId, ids, nextCursor: cursor, error, focus: found && target ? focusOf(target) : null });
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
      if (!cur.sessionId || cur.loadingOlder) return false;
      const gen = generation;
      state.update((s) => ({ ...s, loadingOlder: true }));
      try {
        const { older, cursor, found } = await reach(cur.sessionId, cur.ids, cur.nextCursor, target, gen);
        if (gen !== generation) return false;
        turns.remember(older);
        state.update((s) => {
          // What was paged in goes above; turns started meanwhile stay below.
          const have = new Set(s.ids);
          const above = idsOf(older).filter((id) => !have.has(id));
          return {
            ...s,
            ids: [...above, ...s.ids],
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
      if (!cur.sessionId || !cur.nextCursor || cur.loadingOlder) return 0;
      const gen = generation;
      state.update((s) => ({ ...s, loadingOlder: true }));
      try {
        const page = await backend.listTurns(cur.sessionId, { limit: PAGE, cursor: cur.nextCursor });
        if (gen !== generation) return 0;
        const known = new Set(get(state).ids);
        const older = [...(page.turns ?? [])].reverse().filter((t) => !known.has(t.id));
        turns.remember(older);
        state.update((s) => ({ ...s, ids: [...idsOf(older), ...s.ids], nextCursor: page.next_cursor, loadingOlder: false }));
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
      if (!cur.sessionId) return;
      const gen = generation;
      try {
        const page = await backend.listTurns(cur.sessionId, { limit: PAGE });
        if (gen !== generation) return;
        const fresh = [...(page.turns ?? [])].reverse();
        const first = fresh[0]?.seq ?? Infinity;
        turns.remember(fresh);
        state.update((s) => ({ ...s, ids: [...s.ids.filter((id) => (seqOf(id) ?? 0) < first), ...idsOf(fresh)] }));
      } catch (err) {
        if (gen === generation) state.update((s) => ({ ...s, error: messageOf(err) }));
      }
    },

    /** The draft was created as a session (its first message). */
    adopt(session: Session) {
      sessions.upsert(session);
      sessions.hold(session.id);
      turns.open(session.id, []);
      state.update((s) => ({ ...s, sessionId: session.id }));
    },

    setDraft(patch: Partial<NewSession>) {
      state.update((s) => ({ ...s, draft: { ...s.draft, ...patch } }));
    },

    /** Appends a turn just started in the open session. */
    addTurn(turn: Turn) {
      if (get(state).sessionId !== turn.session_id) return;
      turns.remember([turn]);
      state.update((s) => (s.ids.includes(turn.id) ? s : { ...s, ids: [...s.ids, turn.id] }));
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
