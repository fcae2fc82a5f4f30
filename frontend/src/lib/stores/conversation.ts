// The open session and its turns, oldest first. Turns are paged in from
// the newest (listTurns cursors); the list shows summaries until a turn is
// on screen, when its full view is loaded through the pipeline.
import { get, writable } from 'svelte/store';
import { messageOf, type Backend } from '../api';
import type { NewSession, Session, Turn } from '../types';

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
}

export type ConversationBackend = Pick<Backend, 'getSession' | 'listTurns'>;

const PAGE = 50;

export function createConversation(backend: ConversationBackend) {
  const empty = (draft: NewSession = {}): ConversationState => ({ session: null, draft, turns: [], nextCursor: '', loading: false, loadingOlder: false, error: '' });
  const state = writable<ConversationState>(empty());
  let generation = 0;

  return {
    subscribe: state.subscribe,

    /** Starts a new, unsaved session with these settings. */
    newDraft(draft: NewSession) {
      generation++;
      state.set(empty(draft));
    },

    async open(sessionId: string) {
      const gen = ++generation;
      state.set({ ...empty(), loading: true });
      try {
        const [session, page] = await Promise.all([backend.getSession(sessionId), backend.listTurns(sessionId, { limit: PAGE })]);
        if (gen !== generation) return;
        state.set({ ...empty(), session, turns: [...(page.turns ?? [])].reverse(), nextCursor: page.next_cursor });
      } catch (err) {
        if (gen !== generation) return;
        state.set({ ...empty(), error: messageOf(err) });
      }
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
  };
}

export type ConversationStore = ReturnType<typeof createConversation>;
