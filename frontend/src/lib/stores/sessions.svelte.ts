/* eslint-disable svelte/prefer-svelte-reactivity -- the Maps and Sets here are scratch inside a method, or values held in $state.raw and replaced whole, never changed in place. */
// The sessions the window knows, held once: a paged list by last
// activity, grouped by date, plus the open session wherever it falls (the
// conversation names it by id and reads it here). Which of them have a
// running turn, and full-text search with a debounce. Evaluation sessions
// (a case's turn, kind "eval") are listed only while showEval is on, a
// preference the window keeps (prefs.ts).
import { messageOf, type Backend } from '../api';
import { groupByDate, type DateGroup } from '../dates';
import { storagePrefs, type Prefs } from '../prefs';
import type { NewSession, Page, SearchHit, Session, TurnState } from '../types';

export type SessionsBackend = Pick<Backend, 'listSessions' | 'createSession' | 'renameSession' | 'deleteSession' | 'updateSession'>;

const PAGE = 100;

const showEvalPref = 'sidebar.showEvalSessions';

export class SessionsStore {
  #backend: SessionsBackend;
  #now: () => Date;
  #prefs: Prefs;
  items = $state.raw<Session[]>([]);
  nextCursor = $state('');
  loading = $state(false);
  loaded = $state(false);
  error = $state('');
  /** Evaluation sessions are listed too. */
  #showEval = $state(false);
  #live = $state.raw<LiveTurns>({ started: new Map(), ended: new Set() });
  /** The open session: kept when a reload's first page does not reach it. */
  #held = '';

  constructor(backend: SessionsBackend, now: () => Date = () => new Date(), prefs: Prefs = storagePrefs()) {
    this.#backend = backend;
    this.#now = now;
    this.#prefs = prefs;
    this.#showEval = prefs.flag(showEvalPref, false);
  }

  get showEval(): boolean {
    return this.#showEval;
  }

  /** The list by date. */
  readonly grouped: Array<{ group: DateGroup; items: Session[] }> = $derived.by(() =>
    groupByDate(this.items, (x) => x.updated_at, this.#now()),
  );

  /**
   * The ids of the sessions with a running turn: the list's running_turn
   * (right after a reload), and what the events said since. A turn seen
   * ending stays ended, whatever an older answer of the list says.
   */
  readonly running: ReadonlySet<string> = $derived.by(() => {
    const l = this.#live;
    const out = new Set<string>();
    for (const x of this.items) if (x.running_turn && !l.ended.has(x.running_turn)) out.add(x.id);
    for (const [turn, session] of l.started) if (!l.ended.has(turn)) out.add(session);
    return out;
  });

  /** The list's request: eval is sent only when asked for, as the Go side's default is to hide them. */
  #pageOf(cursor = ''): Partial<Page> {
    return { limit: PAGE, ...(cursor ? { cursor } : {}), ...(this.#showEval ? { eval: true } : {}) };
  }

  /** Lists evaluation sessions too, or stops: kept as a preference, and the list is read again. */
  async setShowEval(on: boolean) {
    if (on === this.#showEval) return;
    this.#showEval = on;
    this.#prefs.setFlag(showEvalPref, on);
    await this.refresh();
  }

  /**
   * A turn's state as its events (or a turns_changed notice) tell it: a
   * running turn marks its session, any other state unmarks it for good.
   */
  noteTurn(sessionId: string, turnId: string, turnState: TurnState) {
    const l = this.#live;
    if (!turnId || l.ended.has(turnId)) return;
    if (turnState === 'running') {
      if (!sessionId || l.started.has(turnId)) return;
      this.#live = { started: new Map(l.started).set(turnId, sessionId), ended: l.ended };
    } else {
      const started = new Map(l.started);
      started.delete(turnId);
      this.#live = { started, ended: new Set(l.ended).add(turnId) };
    }
  }

  async refresh() {
    this.loading = true;
    this.error = '';
    const withEval = this.#showEval;
    try {
      const page = await this.#backend.listSessions(this.#pageOf());
      // An answer to the list as it was before showEval changed: the newer refresh sets it.
      if (withEval !== this.#showEval) return;
      const items = page.sessions ?? [];
      const held = this.#held;
      const open = held && !items.some((x) => x.id === held) ? this.items.find((x) => x.id === held) : undefined;
      this.items = open ? sortItems([...items, open]) : items;
      this.nextCursor = page.next_cursor;
      this.loading = false;
      this.loaded = true;
      this.error = '';
    } catch (err) {
      this.loading = false;
      this.loaded = true;
      this.error = messageOf(err);
    }
  }

  async loadMore() {
    if (!this.nextCursor || this.loading) return;
    const cursor = this.nextCursor;
    this.loading = true;
    const withEval = this.#showEval;
    try {
      const page = await this.#backend.listSessions(this.#pageOf(cursor));
      if (withEval !== this.#showEval) return;
      const known = new Set(this.items.map((x) => x.id));
      this.items = [...this.items, ...(page.sessions ?? []).filter((x) => !known.has(x.id))];
      this.nextCursor = page.next_cursor;
      this.loading = false;
    } catch (err) {
      this.loading = false;
      this.error = messageOf(err);
    }
  }

  async create(req: NewSession): Promise<Session> {
    const s = await this.#backend.createSession(req);
    this.upsert(s);
    return s;
  }

  /** Names the open session ('' for none), which a reload keeps. */
  hold(id: string) {
    this.#held = id;
  }

  /** Adds or replaces a session, keeping the order by activity. */
  upsert(s: Session) {
    this.items = sortItems([s, ...this.items.filter((x) => x.id !== s.id)]);
  }

  /** Marks a session active now (a turn started or ended). */
  touch(id: string, at: string = this.#now().toISOString()) {
    this.items = sortItems(this.items.map((x) => (x.id === id ? { ...x, updated_at: at } : x)));
  }

  async rename(id: string, title: string) {
    const trimmed = title.trim();
    const before = this.items.find((x) => x.id === id);
    if (!before || !trimmed || trimmed === before.title) return;
    this.items = this.items.map((x) => (x.id === id ? { ...x, title: trimmed } : x));
    try {
      await this.#backend.renameSession(id, trimmed);
    } catch (err) {
      this.items = this.items.map((x) => (x.id === id ? { ...x, title: before.title } : x));
      this.error = messageOf(err);
      throw err;
    }
  }

  async remove(id: string) {
    await this.#backend.deleteSession(id);
    this.items = this.items.filter((x) => x.id !== id);
  }

  /** Changes a session's settings: shown at once, put back if the backend refuses. */
  async update(s: Session) {
    const before = this.items.find((x) => x.id === s.id);
    const put = (v: Session) => (this.items = this.items.map((x) => (x.id === v.id ? { ...x, ...v } : x)));
    put(s);
    try {
      await this.#backend.updateSession(s);
    } catch (err) {
      if (before) put(before);
      throw err;
    }
  }

  clearError() {
    this.error = '';
  }
}

function sortItems(items: Session[]) {
  return [...items].sort((a, b) => b.updated_at.localeCompare(a.updated_at) || b.id.localeCompare(a.id));
}

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
export class SearchStore implements SearchState {
  #backend: Pick<Backend, 'searchSessions'>;
  #delay: number;
  #limit: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #generation = 0;
  query = $state('');
  hits = $state.raw<SearchHit[]>([]);
  searching = $state(false);
  error = $state('');

  constructor(backend: Pick<Backend, 'searchSessions'>, delay = 200, limit = 30) {
    this.#backend = backend;
    this.#delay = delay;
    this.#limit = limit;
  }

  #show(query: string, hits: SearchHit[], error: string) {
    this.query = query;
    this.hits = hits;
    this.searching = false;
    this.error = error;
  }

  async #run(q: string, gen: number) {
    try {
      const hits = (await this.#backend.searchSessions(q, this.#limit)) ?? [];
      if (gen === this.#generation) this.#show(q, hits, '');
    } catch (err) {
      if (gen === this.#generation) this.#show(q, [], messageOf(err));
    }
  }

  set(query: string) {
    clearTimeout(this.#timer);
    const gen = ++this.#generation;
    const q = query.trim();
    if (!q) {
      this.#show('', [], '');
      return;
    }
    this.query = query;
    this.searching = true;
    this.#timer = setTimeout(() => void this.#run(q, gen), this.#delay);
  }

  clear() {
    this.set('');
  }
}
