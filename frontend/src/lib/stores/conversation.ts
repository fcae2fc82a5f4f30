// Which session is open and the turns of its active branch, oldest first:
// the conversation as it reads now (turns form a tree; other versions of a
// turn are reached with its version switcher). It holds ids only: the
// session itself is in the sessions store, each turn's row and view in
// the turn store (turns.svelte.ts). Turns are paged in from the newest
// (listBranch cursors), each page naming the versions of its turns; the
// list shows rows until a turn is on screen, when its full view is
// loaded. A turn asked for (a search hit, a link) on another branch makes
// that branch active first; it is paged in with the turns after it, and
// becomes the focus: the list scrolls to it and, unless told not to,
// marks it.
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
  /** Scroll to it without the frame and label (a version switch). */
  quiet?: boolean;
}

/** The turn the list scrolls to and marks. */
export interface Focus {
  turnId: string;
  terms: string[];
  /** Frame and label it; false only scrolls to it. */
  mark: boolean;
  /** Counts the requests, so asking for the same turn again scrolls again. */
  n: number;
}

interface Held {
  /** The open session's id, or '' for a new one not yet created. */
  sessionId: string;
  /** What a new session will use. */
  draft: NewSession;
  /** The open session's active branch, as far as it is paged in, oldest first. */
  ids: string[];
  /** For each turn paged in that has other versions: all of them, oldest first. */
  versions: Record<string, string[]>;
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

export type ConversationBackend = Pick<Backend, 'getSession' | 'listBranch' | 'getTurn' | 'switchBranch'>;

const PAGE = 50;
/** The most turns one listBranch answers (store.ListBranch). */
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
  const empty = (draft: NewSession = {}): Held => ({ sessionId: '', draft, ids: [], versions: {}, nextCursor: '', loading: false, loadingOlder: false, error: '', focus: null });
  const state = writable<Held>(empty());
  const shown: Readable<ConversationState> = derived([state, sessions], ([c, s]) => ({ ...c, session: (c.sessionId && s.items.find((x) => x.id === c.sessionId)) || null }));
  let generation = 0;
  let focusCount = 0;

  const focusOf = (t: TurnTarget): Focus => ({ turnId: t.turnId, terms: t.terms ?? [], mark: !t.quiet, n: ++focusCount });
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
    const versions: Record<string, string[]> = {};
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
      const page = await backend.listBranch(sessionId, { limit: Math.min(MAX_PAGE, lowest - seq + ABOVE), cursor });
      const fresh = [...(page.turns ?? [])].reverse().filter((t) => !known.has(t.id));
      for (const t of fresh) known.add(t.id);
      older.unshift(...fresh);
      Object.assign(versions, page.versions ?? {});
      cursor = page.next_cursor;
    }
    return { older, versions, cursor, found: has() };
  }

  /**
   * Makes the target's branch the active one when it is a turn of the
   * session (a search hit on another version); a turn already on the
   * active branch leaves it as it is. Answers the target with its seq.
   */
  async function onItsBranch(sessionId: string, target: TurnTarget): Promise<TurnTarget> {
    try {
      const d = await backend.getTurn(target.turnId, false);
      if (d.session_id !== sessionId) return target;
      await backend.switchBranch(target.turnId);
      return { ...target, seq: d.seq };
    } catch {
      return target; // Not there: open says so.
    }
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

    /**
     * Opens a session at the newest turn of its active branch, or at the
     * target turn, whose branch becomes the active one.
     */
    async open(sessionId: string, target: TurnTarget | null = null): Promise<Opened> {
      const gen = ++generation;
      state.set({ ...empty(), loading: true });
      try {
        if (target) target = await onItsBranch(sessionId, target);
        const [session, page] = await Promise.all([backend.getSession(sessionId), backend.listBranch(sessionId, { limit: PAGE })]);
        if (gen !== generation) return { ok: true, found: false };
        const rows = [...(page.turns ?? [])].reverse();
        turns.open(sessionId, rows);
        let ids = idsOf(rows);
        let versions = page.versions ?? {};
        let cursor = page.next_cursor;
        let found = false;
        if (target) {
          const r = await reach(sessionId, ids, cursor, target, gen);
          if (gen !== generation) return { ok: true, found: false };
          turns.remember(r.older);
          ids = [...idsOf(r.older), ...ids];
          versions = { ...r.versions, ...versions };
          cursor = r.cursor;
          found = r.found;
        }
        const error = target && !found ? missing(target.turnId) : '';
        sessions.upsert(session);
        sessions.hold(sessionId);
        state.set({ ...empty(), sessionId, ids, versions, nextCursor: cursor, error, focus: found && target ? focusOf(target) : null });
        return { ok: true, found };
      } catch (err) {
        if (gen !== generation) return { ok: true, found: false };
        state.set({ ...empty(), error: messageOf(err) });
        return { ok: false, found: false };
      }
    },

    /**
     * Shows another version of a turn: its branch becomes the active one,
     * and the list shows that branch, scrolled to the version.
     */
    async showVersion(turnId: string): Promise<boolean> {
      const cur = get(state);
      if (!cur.sessionId) return false;
      const r = await this.open(cur.sessionId, { turnId, quiet: true });
      return r.found;
    },

    /** Scrolls the open session to one of its turns, paging it in if needed. */
    async focusTurn(target: TurnTarget): Promise<boolean> {
      const cur = get(state);
      if (!cur.sessionId || cur.loadingOlder) return false;
      if (!cur.ids.includes(target.turnId)) {
        // It may be on another branch, or older than what is paged in:
        // open the session at it, which makes its branch the active one.
        return (await this.open(cur.sessionId, target)).found;
      }
      const gen = generation;
      state.update((s) => ({ ...s, loadingOlder: true }));
      try {
        const { older, versions, cursor, found } = await reach(cur.sessionId, cur.ids, cur.nextCursor, target, gen);
        if (gen !== generation) return false;
        turns.remember(older);
        state.update((s) => {
          // What was paged in goes above; turns started meanwhile stay below.
          const have = new Set(s.ids);
          const above = idsOf(older).filter((id) => !have.has(id));
          return {
            ...s,
            ids: [...above, ...s.ids],
            versions: { ...versions, ...s.versions },
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
        const page = await backend.listBranch(cur.sessionId, { limit: PAGE, cursor: cur.nextCursor });
        if (gen !== generation) return 0;
        const known = new Set(get(state).ids);
        const older = [...(page.turns ?? [])].reverse().filter((t) => !known.has(t.id));
        turns.remember(older);
        state.update((s) => ({ ...s, ids: [...idsOf(older), ...s.ids], versions: { ...page.versions, ...s.versions }, nextCursor: page.next_cursor, loadingOlder: false }));
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
        const page = await backend.listBranch(cur.sessionId, { limit: PAGE });
        if (gen !== generation) return;
        const fresh = [...(page.turns ?? [])].reverse();
        const first = fresh[0]?.seq ?? Infinity;
        turns.remember(fresh);
        state.update((s) => ({ ...s, ids: [...s.ids.filter((id) => (seqOf(id) ?? 0) < first), ...idsOf(fresh)], versions: { ...s.versions, ...page.versions } }));
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

    /**
     * Shows a turn just started in the open session: after the turn it
     * follows, which ends the branch shown there. A new version of a turn
     * (versionOf) takes its place, and joins its versions.
     */
    addTurn(turn: Turn, versionOf = '') {
      if (get(state).sessionId !== turn.session_id) return;
      turns.remember([turn]);
      state.update((s) => {
        if (s.ids.includes(turn.id)) return s;
        // Cut where it goes: at the version it joins, or after its parent.
        let at = versionOf ? s.ids.indexOf(versionOf) : turn.parent_turn_id ? s.ids.indexOf(turn.parent_turn_id) + 1 : 0;
        if (at < 0 || (at === 0 && turn.parent_turn_id && !versionOf)) at = s.ids.length;
        const ids = [...s.ids.slice(0, at), turn.id];
        if (!versionOf) return { ...s, ids };
        const group = [...(s.versions[versionOf] ?? [versionOf]), turn.id];
        const versions = { ...s.versions };
        for (const id of group) versions[id] = group;
        return { ...s, ids, versions };
      });
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
