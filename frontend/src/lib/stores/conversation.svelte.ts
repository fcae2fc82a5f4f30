/* eslint-disable svelte/prefer-svelte-reactivity -- the Maps and Sets here are scratch inside a method, or values held in $state.raw and replaced whole, never changed in place. */
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
import { messageOf, type Backend } from '../api';
import type { NewSession, Session, Turn } from '../types';
import type { SessionsStore } from './sessions.svelte';
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

/** What shows a session's side-by-side columns (sidebyside.svelte.ts): told which session opened. */
export interface GroupView {
  show(session: Session | null): Promise<void>;
  refresh(): Promise<void>;
  clear(): void;
}

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

const empty = (draft: NewSession = {}): Held => ({
  sessionId: '',
  draft,
  ids: [],
  versions: {},
  nextCursor: '',
  loading: false,
  loadingOlder: false,
  error: '',
  focus: null,
});

export class ConversationStore implements ConversationState {
  #backend: ConversationBackend;
  #sessions: Pick<SessionsStore, 'items' | 'upsert' | 'hold'>;
  #turns: TurnStore;
  #groups: GroupView | null;
  #generation = 0;
  #focusCount = 0;

  sessionId = $state('');
  draft = $state.raw<NewSession>({});
  ids = $state.raw<string[]>([]);
  versions = $state.raw<Record<string, string[]>>({});
  nextCursor = $state('');
  loading = $state(false);
  loadingOlder = $state(false);
  error = $state('');
  focus = $state.raw<Focus | null>(null);

  /** The open session (from the sessions store), or null for a new one not yet created. */
  readonly session: Session | null = $derived.by(
    () => (this.sessionId && this.#sessions.items.find((x) => x.id === this.sessionId)) || null,
  );

  constructor(
    backend: ConversationBackend,
    sessions: Pick<SessionsStore, 'items' | 'upsert' | 'hold'>,
    turns: TurnStore,
    groups: GroupView | null = null,
  ) {
    this.#backend = backend;
    this.#sessions = sessions;
    this.#turns = turns;
    this.#groups = groups;
  }

  /** Shows h: every field at once. */
  #set(h: Held) {
    this.sessionId = h.sessionId;
    this.draft = h.draft;
    this.ids = h.ids;
    this.versions = h.versions;
    this.nextCursor = h.nextCursor;
    this.loading = h.loading;
    this.loadingOlder = h.loadingOlder;
    this.error = h.error;
    this.focus = h.focus;
  }

  #focusOf(t: TurnTarget): Focus {
    return { turnId: t.turnId, terms: t.terms ?? [], mark: !t.quiet, n: ++this.#focusCount };
  }

  #seqOf(id: string | undefined) {
    return id ? this.#turns.summary(id)?.seq : undefined;
  }

  /**
   * Pages in older turns until the target is among them. Its seq says how
   * many: the target and ABOVE turns before it, in as few pages as
   * listTurns allows. Without a seq it is read first (and must belong to
   * the session). Answers the older rows paged in, the cursor, and whether
   * it is there.
   */
  async #reach(sessionId: string, ids: readonly string[], cursor: string, target: TurnTarget, gen: number) {
    const known = new Set(ids);
    const older: Turn[] = [];
    const versions: Record<string, string[]> = {};
    const has = () => known.has(target.turnId);
    let seq = target.seq ?? 0;
    if (!has() && !seq) {
      try {
        const d = await this.#backend.getTurn(target.turnId, false);
        if (d.session_id === sessionId) seq = d.seq;
      } catch {
        // Not there: said by found.
      }
    }
    while (!has() && seq > 0 && cursor && gen === this.#generation) {
      const lowest = older[0]?.seq ?? this.#seqOf(ids[0]) ?? seq + 1;
      if (seq >= lowest) break;
      const page = await this.#backend.listBranch(sessionId, { limit: Math.min(MAX_PAGE, lowest - seq + ABOVE), cursor });
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
  async #onItsBranch(sessionId: string, target: TurnTarget): Promise<TurnTarget> {
    try {
      const d = await this.#backend.getTurn(target.turnId, false);
      if (d.session_id !== sessionId) return target;
      await this.#backend.switchBranch(target.turnId);
      return { ...target, seq: d.seq };
    } catch {
      return target; // Not there: open says so.
    }
  }

  /** Starts a new, unsaved session with these settings. */
  newDraft(draft: NewSession) {
    this.#generation++;
    this.#sessions.hold('');
    this.#turns.open('', []);
    this.#groups?.clear();
    this.#set(empty(draft));
  }

  /**
   * Opens a session at the newest turn of its active branch, or at the
   * target turn, whose branch becomes the active one.
   */
  async open(sessionId: string, target: TurnTarget | null = null): Promise<Opened> {
    const gen = ++this.#generation;
    this.#set({ ...empty(), loading: true });
    try {
      if (target) target = await this.#onItsBranch(sessionId, target);
      const [session, page] = await Promise.all([
        this.#backend.getSession(sessionId),
        this.#backend.listBranch(sessionId, { limit: PAGE }),
      ]);
      if (gen !== this.#generation) return { ok: true, found: false };
      const rows = [...(page.turns ?? [])].reverse();
      this.#turns.open(sessionId, rows);
      let ids = idsOf(rows);
      let versions = page.versions ?? {};
      let cursor = page.next_cursor;
      let found = false;
      if (target) {
        const r = await this.#reach(sessionId, ids, cursor, target, gen);
        if (gen !== this.#generation) return { ok: true, found: false };
        this.#turns.remember(r.older);
        ids = [...idsOf(r.older), ...ids];
        versions = { ...r.versions, ...versions };
        cursor = r.cursor;
        found = r.found;
      }
      const error = target && !found ? missing(target.turnId) : '';
      // The columns it shows side by side, read before anything shows.
      await this.#groups?.show(session);
      if (gen !== this.#generation) return { ok: true, found: false };
      this.#sessions.upsert(session);
      this.#sessions.hold(sessionId);
      this.#set({ ...empty(), sessionId, ids, versions, nextCursor: cursor, error, focus: found && target ? this.#focusOf(target) : null });
      return { ok: true, found };
    } catch (err) {
      if (gen !== this.#generation) return { ok: true, found: false };
      this.#set({ ...empty(), error: messageOf(err) });
      return { ok: false, found: false };
    }
  }

  /**
   * Shows another version of a turn: its branch becomes the active one,
   * and the list shows that branch, scrolled to the version.
   */
  async showVersion(turnId: string): Promise<boolean> {
    if (!this.sessionId) return false;
    const r = await this.open(this.sessionId, { turnId, quiet: true });
    return r.found;
  }

  /** Scrolls the open session to one of its turns, paging it in if needed. */
  async focusTurn(target: TurnTarget): Promise<boolean> {
    const sessionId = this.sessionId;
    if (!sessionId || this.loadingOlder) return false;
    if (!this.ids.includes(target.turnId)) {
      // It may be on another branch, or older than what is paged in:
      // open the session at it, which makes its branch the active one.
      return (await this.open(sessionId, target)).found;
    }
    const gen = this.#generation;
    this.loadingOlder = true;
    try {
      const { older, versions, cursor, found } = await this.#reach(sessionId, this.ids, this.nextCursor, target, gen);
      if (gen !== this.#generation) return false;
      this.#turns.remember(older);
      // What was paged in goes above; turns started meanwhile stay below.
      const have = new Set(this.ids);
      const above = idsOf(older).filter((id) => !have.has(id));
      this.ids = [...above, ...this.ids];
      this.versions = { ...versions, ...this.versions };
      if (older.length) this.nextCursor = cursor;
      this.loadingOlder = false;
      this.error = found ? '' : missing(target.turnId);
      if (found) this.focus = this.#focusOf(target);
      return found;
    } catch (err) {
      if (gen === this.#generation) {
        this.loadingOlder = false;
        this.error = messageOf(err);
      }
      return false;
    }
  }

  /** Unmarks the focused turn. */
  clearFocus() {
    if (this.focus) this.focus = null;
  }

  /** Pages in older turns; resolves to how many were added at the top. */
  async loadOlder(): Promise<number> {
    const sessionId = this.sessionId;
    if (!sessionId || !this.nextCursor || this.loadingOlder) return 0;
    const gen = this.#generation;
    this.loadingOlder = true;
    try {
      const page = await this.#backend.listBranch(sessionId, { limit: PAGE, cursor: this.nextCursor });
      if (gen !== this.#generation) return 0;
      const known = new Set(this.ids);
      const older = [...(page.turns ?? [])].reverse().filter((t) => !known.has(t.id));
      this.#turns.remember(older);
      this.ids = [...idsOf(older), ...this.ids];
      this.versions = { ...page.versions, ...this.versions };
      this.nextCursor = page.next_cursor;
      this.loadingOlder = false;
      return older.length;
    } catch (err) {
      if (gen === this.#generation) {
        this.loadingOlder = false;
        this.error = messageOf(err);
      }
      return 0;
    }
  }

  /**
   * Loads the newest page of the open session's turns again, keeping the
   * older ones already paged in: turns changed with no event (a dead
   * process's turn was marked interrupted).
   */
  async reloadTurns() {
    const sessionId = this.sessionId;
    if (!sessionId) return;
    const gen = this.#generation;
    try {
      const page = await this.#backend.listBranch(sessionId, { limit: PAGE });
      if (gen !== this.#generation) return;
      const fresh = [...(page.turns ?? [])].reverse();
      const first = fresh[0]?.seq ?? Infinity;
      this.#turns.remember(fresh);
      this.ids = [...this.ids.filter((id) => (this.#seqOf(id) ?? 0) < first), ...idsOf(fresh)];
      this.versions = { ...this.versions, ...page.versions };
      await this.#groups?.refresh();
    } catch (err) {
      if (gen === this.#generation) this.error = messageOf(err);
    }
  }

  /** The draft was created as a session (its first message). */
  adopt(session: Session) {
    this.#sessions.upsert(session);
    this.#sessions.hold(session.id);
    this.#turns.open(session.id, []);
    this.sessionId = session.id;
  }

  setDraft(patch: Partial<NewSession>) {
    this.draft = { ...this.draft, ...patch };
  }

  /**
   * Shows a turn just started in the open session: after the turn it
   * follows, which ends the branch shown there. A new version of a turn
   * (versionOf) takes its place, and joins its versions.
   */
  addTurn(turn: Turn, versionOf = '') {
    if (this.sessionId !== turn.session_id) return;
    this.#turns.remember([turn]);
    if (this.ids.includes(turn.id)) return;
    // Cut where it goes: at the version it joins, or after its parent.
    let at = versionOf ? this.ids.indexOf(versionOf) : turn.parent_turn_id ? this.ids.indexOf(turn.parent_turn_id) + 1 : 0;
    if (at < 0 || (at === 0 && turn.parent_turn_id && !versionOf)) at = this.ids.length;
    this.ids = [...this.ids.slice(0, at), turn.id];
    if (!versionOf) return;
    const group = [...(this.versions[versionOf] ?? [versionOf]), turn.id];
    const versions = { ...this.versions };
    for (const id of group) versions[id] = group;
    this.versions = versions;
  }

  clearError() {
    this.error = '';
  }

  /** Says what went wrong with what is shown (an address naming nothing). */
  setError(error: string) {
    this.error = error;
  }
}

const idsOf = (rows: readonly Turn[]) => rows.map((t) => t.id);
const missing = (turnId: string) =>
  `There is no turn ${turnId} in this session. It may have been deleted; the session is shown from its latest turn.`;
