/* eslint-disable svelte/prefer-svelte-reactivity -- the Maps and Sets here are scratch inside a method, or values held in $state.raw and replaced whole, never changed in place. */
// The sessions the window knows, held once (items: every session any part
// of the list loaded, plus the open one wherever it falls; the conversation
// names it by id and reads it here), and the list's shape (groups):
//
//   - no filter: "Pinned" first, then each project (ListProjects: a name
//     and a count, folded until opened, GroupFolds keeps the choice), then
//     "No project". Each part pages on its own: "No project" with
//     listSessions({project: '-'}), an open project with
//     listSessions({project: id}); a folded project loads nothing, so
//     opening the window costs ListProjects, the first page of "No
//     project" and the pinned ones (a page of one, whose pinned part is
//     all of them), read at once. With no project at all it is the flat
//     list by date it always was.
//   - a tag, or one project (the address's `#/p/<id>`): one flat list of
//     what passes, pinned ones first.
//
// Archived sessions are listed only while showArchived is on, evaluation
// sessions (a case's turn, kind "eval") only while showEval is on; both
// are preferences the window keeps (prefs.ts). Which sessions have a
// running turn, and full-text search with a debounce (SearchStore).
import { messageOf, type Backend } from '../api';
import { groupByDate, type DateGroup } from '../dates';
import { storagePrefs, type Prefs } from '../prefs';
import type { NewSession, Page, ProjectSummary, Scope, SearchHit, Session, SessionPage, TurnState } from '../types';
import { ProjectsStore, type ProjectsBackend } from './projects.svelte';
import { GroupFolds, NO_PROJECT, PINNED_GROUP } from './sidebar.svelte';
import { draftActive, noReviewDraft, toSessionReviews, type ReviewDraft } from '../reviews';

export { NO_PROJECT, PINNED_GROUP } from './sidebar.svelte';

export type SessionsBackend = Pick<
  Backend,
  | 'listSessions'
  | 'createSession'
  | 'renameSession'
  | 'deleteSession'
  | 'updateSession'
  | 'moveSession'
  | 'pinSession'
  | 'archiveSession'
  | 'setTags'
> &
  ProjectsBackend;

/** A page of the main list ("No project", or the filtered list). */
const PAGE = 100;
/** A page of a project's group. */
const GROUP_PAGE = 50;
/** The key of the one list a tag or a project filter shows. */
export const FILTERED = 'filtered';

const showEvalPref = 'sidebar.showEvalSessions';
const showArchivedPref = 'sidebar.showArchived';

/** One part of the list, in the order shown. */
export interface SessionGroup {
  /** PINNED_GROUP, a project's id, NO_PROJECT or FILTERED. */
  key: string;
  kind: 'pinned' | 'project' | 'none' | 'filtered';
  label: string;
  project: ProjectSummary | null;
  /** Its number of sessions where known without loading them (a project's, archived ones too). */
  count: number | null;
  /** Has a header that folds it; the one list of a filtered or project-less sidebar has none. */
  foldable: boolean;
  open: boolean;
  items: Session[];
  /** Another page is there to load. */
  more: boolean;
  loading: boolean;
  error: string;
}

/** Where one part of the list is in its paging. */
interface ListState {
  cursor: string;
  loading: boolean;
  loaded: boolean;
  error: string;
}

export class SessionsStore {
  #backend: SessionsBackend;
  #now: () => Date;
  #prefs: Prefs;
  /** The projects the list groups by, and the tags in use. */
  readonly projects: ProjectsStore;
  /** Which groups are open. */
  readonly folds: GroupFolds;
  items = $state.raw<Session[]>([]);
  loading = $state(false);
  loaded = $state(false);
  error = $state('');
  /** The list keeps only the sessions with this tag ('' for all). */
  tag = $state('');
  /** The list keeps only the sessions with a turn this review filter picks ("rated down in the last week"). */
  reviews = $state.raw<ReviewDraft>(noReviewDraft);
  /** The list keeps only this project's sessions ('' for all, NO_PROJECT for those in none). */
  project = $state('');
  /** Evaluation sessions are listed too. */
  #showEval = $state(false);
  /** Archived sessions are listed too. */
  #showArchived = $state(false);
  #lists = $state.raw<Record<string, ListState>>({});
  #live = $state.raw<LiveTurns>({ started: new Map(), ended: new Set() });
  /** The open session: kept when a reload's first page does not reach it. */
  #held = $state('');
  /** Raised by each refresh: an answer to an older one is dropped. */
  #gen = 0;

  constructor(backend: SessionsBackend, now: () => Date = () => new Date(), prefs: Prefs = storagePrefs()) {
    this.#backend = backend;
    this.#now = now;
    this.#prefs = prefs;
    this.#showEval = prefs.flag(showEvalPref, false);
    this.#showArchived = prefs.flag(showArchivedPref, false);
    this.projects = new ProjectsStore(backend);
    this.folds = new GroupFolds(prefs);
  }

  get showEval(): boolean {
    return this.#showEval;
  }

  get showArchived(): boolean {
    return this.#showArchived;
  }

  /** The list shows one flat filtered list (a tag or a project), not the groups. */
  get filtered(): boolean {
    return !!this.tag || !!this.project || draftActive(this.reviews);
  }

  /** What a search is limited to: the project and the tag the list shows. */
  get scope(): Scope {
    return { ...(this.project ? { project: this.project } : {}), ...(this.tag ? { tag: this.tag } : {}) };
  }

  /** The list's parts, in order (see the top of this file). */
  readonly groups: SessionGroup[] = $derived.by(() => this.#groupsOf());

  /** The main list by date (the filtered list, or "No project"): what a sidebar without projects shows. */
  readonly grouped: Array<{ group: DateGroup; items: Session[] }> = $derived.by(() => {
    const main = this.groups.find((g) => g.kind === 'none' || g.kind === 'filtered');
    return groupByDate(main?.items ?? [], (x) => x.updated_at, this.#now());
  });

  /** The main list's next page ('' when it is all here). */
  get nextCursor(): string {
    return this.#lists[this.#mainKey()]?.cursor ?? '';
  }

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

  #groupsOf(): SessionGroup[] {
    const shown = this.items.filter((s) => this.#passes(s));
    const pinned = shown.filter((s) => s.pinned_at).sort((a, b) => (b.pinned_at ?? '').localeCompare(a.pinned_at ?? ''));
    const rest = shown.filter((s) => !s.pinned_at);
    const out: SessionGroup[] = [];
    const projects = this.projects.items;
    if (pinned.length) out.push(this.#group(PINNED_GROUP, 'pinned', 'Pinned', pinned, { foldable: true }));
    if (this.filtered) {
      out.push(this.#group(FILTERED, 'filtered', '', rest, { foldable: false }));
      return out;
    }
    const known = new Set(projects.map((p) => p.id));
    const byProject = new Map<string, Session[]>();
    for (const s of rest) {
      const key = s.project_id && known.has(s.project_id) ? s.project_id : NO_PROJECT;
      const list = byProject.get(key);
      if (list) list.push(s);
      else byProject.set(key, [s]);
    }
    for (const p of projects) {
      out.push(this.#group(p.id, 'project', p.name, byProject.get(p.id) ?? [], { foldable: true, project: p, count: p.sessions }));
    }
    const none = byProject.get(NO_PROJECT) ?? [];
    out.push(this.#group(NO_PROJECT, 'none', 'No project', none, { foldable: projects.length > 0 }));
    return out;
  }

  #group(
    key: string,
    kind: SessionGroup['kind'],
    label: string,
    items: Session[],
    o: { foldable: boolean; project?: ProjectSummary; count?: number },
  ): SessionGroup {
    const st = this.#lists[key];
    const open = !o.foldable || this.folds.isOpen(key);
    return {
      key,
      kind,
      label,
      project: o.project ?? null,
      count: o.count ?? (kind === 'project' ? 0 : null),
      foldable: o.foldable,
      open,
      items: open ? items : [],
      more: !!st?.cursor,
      loading: !!st?.loading,
      error: st?.error ?? '',
    };
  }

  /** Whether the list shows a session: the open one whatever its eval or archived state. */
  #passes(s: Session): boolean {
    const held = s.id === this.#held;
    if (s.kind === 'eval' && !this.#showEval && !held) return false;
    if (s.archived_at && !this.#showArchived && !held) return false;
    if (this.tag && !hasTag(s, this.tag)) return false;
    if (this.project === NO_PROJECT ? !!s.project_id : this.project && s.project_id !== this.project) return false;
    return true;
  }

  #mainKey(): string {
    return this.filtered ? FILTERED : NO_PROJECT;
  }

  /** The request for a part of the list; eval and archived are sent only when asked for, the Go side's default being to hide them. */
  #pageOf(key: string, cursor = ''): Partial<Page> {
    const base: Partial<Page> = {
      limit: key === PINNED_GROUP ? 1 : key === NO_PROJECT || key === FILTERED ? PAGE : GROUP_PAGE,
      ...(cursor ? { cursor } : {}),
      ...(this.#showEval ? { eval: true } : {}),
      ...(this.#showArchived ? { archived: true } : {}),
    };
    if (key === FILTERED) {
      const reviews = toSessionReviews(this.reviews, this.#now());
      return { ...base, ...this.scope, ...(reviews ? { reviews } : {}) };
    }
    if (key === PINNED_GROUP) return base;
    return { ...base, project: key };
  }

  /** The parts of the list to read now; projects' open groups once the projects are known. */
  #openKeys(): string[] {
    return this.filtered ? [FILTERED] : [PINNED_GROUP, NO_PROJECT];
  }

  #openProjectKeys(): string[] {
    if (this.filtered) return [];
    return this.projects.items.filter((p) => this.folds.isOpen(p.id)).map((p) => p.id);
  }

  /** Lists evaluation sessions too, or stops: kept as a preference, and the list is read again. */
  async setShowEval(on: boolean) {
    if (on === this.#showEval) return;
    this.#showEval = on;
    this.#prefs.setFlag(showEvalPref, on);
    await this.refresh();
  }

  /** Lists archived sessions too, or stops: kept as a preference, and the list is read again. */
  async setShowArchived(on: boolean) {
    if (on === this.#showArchived) return;
    this.#showArchived = on;
    this.#prefs.setFlag(showArchivedPref, on);
    await this.refresh();
  }

  /** Keeps only the sessions with a tag ('' for all). */
  async setTag(tag: string) {
    const t = tag.trim().replace(/^#/, '');
    if (t === this.tag) return;
    this.tag = t;
    await this.refresh();
  }

  /** Keeps only the sessions with a turn a review filter picks (noReviewDraft for all). */
  async setReviews(d: ReviewDraft) {
    const r = this.reviews;
    if (r.rated === d.rated && r.label === d.label && r.since === d.since) return;
    this.reviews = { ...d };
    await this.refresh();
  }

  /** Keeps only one project's sessions ('' for all): the address's `#/p/<id>`. */
  async setProject(id: string) {
    if (id === this.project) return;
    this.project = id;
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

  /**
   * Reads the list again: the projects and every open part's first page,
   * all at once, shown together. Sessions no part returns are dropped,
   * but for the open one.
   */
  async refresh() {
    const gen = ++this.#gen;
    this.loading = true;
    this.error = '';
    const read = async (key: string) => ({ key, page: await this.#backend.listSessions(this.#pageOf(key)) });
    const projectsThen = async () => {
      await this.projects.refresh();
      return Promise.all(this.#openProjectKeys().map(read));
    };
    try {
      const [pages, more] = await Promise.all([Promise.all(this.#openKeys().map(read)), this.filtered ? [] : projectsThen()]);
      if (gen !== this.#gen) return;
      const lists: Record<string, ListState> = {};
      const got: Session[] = [];
      for (const { key, page } of [...pages, ...more]) {
        got.push(...(page.pinned ?? []), ...(key === PINNED_GROUP ? [] : (page.sessions ?? [])));
        lists[key] = { cursor: key === PINNED_GROUP ? '' : page.next_cursor, loading: false, loaded: true, error: '' };
      }
      const held = this.#held;
      const open = held && !got.some((x) => x.id === held) ? this.items.find((x) => x.id === held) : undefined;
      this.items = sortItems(unique(open ? [...got, open] : got));
      this.#lists = lists;
      this.loading = false;
      this.loaded = true;
    } catch (err) {
      if (gen !== this.#gen) return;
      this.loading = false;
      this.loaded = true;
      this.error = messageOf(err);
    }
  }

  /** The main list's next page (its end scrolled into view). */
  loadMore(): Promise<void> {
    return this.more(this.#mainKey());
  }

  /** A part's next page. */
  async more(key: string) {
    const st = this.#lists[key];
    if (!st?.cursor || st.loading) return;
    await this.#read(key, st.cursor);
  }

  /** Opens or folds a group; an opened group reads its first page if it has none. */
  async toggleGroup(key: string) {
    this.folds.toggle(key);
    if (this.folds.isOpen(key)) await this.openGroup(key);
  }

  /** Reads a group's first page unless it has one. */
  async openGroup(key: string) {
    const st = this.#lists[key];
    if (st?.loaded || st?.loading || key === PINNED_GROUP) return;
    await this.#read(key, '');
  }

  async #read(key: string, cursor: string) {
    const gen = this.#gen;
    const setState = (v: Partial<ListState>) => {
      const was = this.#lists[key] ?? { cursor: '', loading: false, loaded: false, error: '' };
      this.#lists = { ...this.#lists, [key]: { ...was, ...v } };
    };
    setState({ loading: true, error: '' });
    let page: SessionPage;
    try {
      page = await this.#backend.listSessions(this.#pageOf(key, cursor));
    } catch (err) {
      if (gen === this.#gen) setState({ loading: false, error: messageOf(err) });
      return;
    }
    if (gen !== this.#gen) return;
    this.#merge([...(page.pinned ?? []), ...(page.sessions ?? [])]);
    setState({ loading: false, loaded: true, cursor: page.next_cursor });
  }

  /** Adds sessions a page brought; what it says of a known one replaces what was known. */
  #merge(list: Session[]) {
    if (!list.length) return;
    const ids = new Set(list.map((x) => x.id));
    this.items = sortItems([...list, ...this.items.filter((x) => !ids.has(x.id))]);
  }

  async create(req: NewSession): Promise<Session> {
    const s = await this.#backend.createSession(req);
    this.upsert(s);
    if (s.project_id) this.projects.counted('', s.project_id);
    return s;
  }

  /** Names the open session ('' for none), which a reload keeps; its project's group shows it. */
  hold(id: string) {
    this.#held = id;
    const pid = id ? this.items.find((x) => x.id === id)?.project_id : '';
    if (this.filtered) return;
    this.folds.reveal(pid ?? '');
    if (pid) void this.openGroup(pid);
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
    const s = this.items.find((x) => x.id === id);
    if (s?.project_id) this.projects.counted(s.project_id, '');
    this.items = this.items.filter((x) => x.id !== id);
  }

  /** Changes a session's settings: shown at once, put back if the backend refuses. */
  async update(s: Session) {
    await this.#change(s.id, s, () => this.#backend.updateSession(s));
  }

  /** Pins a session to the top of the list, or unpins it. */
  async pin(id: string, pinned: boolean) {
    await this.#change(id, { pinned_at: pinned ? this.#now().toISOString() : null }, () => this.#backend.pinSession(id, pinned));
  }

  /** Archives a session (hidden from the list unless archived ones are shown), or brings it back. */
  async archive(id: string, archived: boolean) {
    await this.#change(id, { archived_at: archived ? this.#now().toISOString() : null }, () => this.#backend.archiveSession(id, archived));
  }

  /** Moves a session to a project ('' for none); its turns keep how they ran. */
  async move(id: string, projectId: string) {
    const from = this.items.find((x) => x.id === id)?.project_id ?? '';
    if (from === projectId) return;
    await this.#change(id, { project_id: projectId }, () => this.#backend.moveSession(id, projectId));
    this.projects.counted(from, projectId);
  }

  /** Sets a session's tags (trimmed, without "#", each once whatever its case, in order of name). */
  async setTags(id: string, tags: string[]) {
    const clean = normalTags(tags);
    await this.#change(id, { tags: clean }, () => this.#backend.setTags(id, clean));
    void this.projects.loadTags(true);
  }

  /** Deletes a project: its sessions move to no project ('keep') or are deleted with it ('delete'). */
  async removeProject(id: string, sessions: 'keep' | 'delete') {
    await this.projects.remove(id, sessions);
    this.items =
      sessions === 'delete'
        ? this.items.filter((x) => x.project_id !== id)
        : this.items.map((x) => (x.project_id === id ? { ...x, project_id: '' } : x));
    if (this.project === id) await this.setProject('');
  }

  // A change shown at once and put back if the backend refuses it.
  async #change(id: string, patch: Partial<Session>, call: () => Promise<void>) {
    const before = this.items.find((x) => x.id === id);
    const put = (v: Partial<Session>) => (this.items = this.items.map((x) => (x.id === id ? { ...x, ...v } : x)));
    put(patch);
    try {
      await call();
    } catch (err) {
      if (before) put(before);
      throw err;
    }
  }

  clearError() {
    this.error = '';
  }
}

/** Tags as the backend keeps them: trimmed, without "#", each once whatever its case, in order of name. */
export function normalTags(tags: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of tags) {
    const t = raw.trim().replace(/^#/, '').trim();
    if (t && !out.some((o) => o.toLowerCase() === t.toLowerCase())) out.push(t);
  }
  return out.sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
}

function hasTag(s: Session, tag: string): boolean {
  const t = tag.toLowerCase();
  return (s.tags ?? []).some((x) => x.toLowerCase() === t);
}

function unique(items: Session[]): Session[] {
  const seen = new Set<string>();
  return items.filter((x) => !seen.has(x.id) && !!seen.add(x.id));
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

/**
 * Search with a debounce; answers to an older query are dropped. With a
 * scope (a project, a tag: what the list shows) it searches there only
 * (searchIn), else everywhere (searchSessions).
 */
export class SearchStore implements SearchState {
  #backend: Pick<Backend, 'searchSessions' | 'searchIn'>;
  #scope: Scope = {};
  #delay: number;
  #limit: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #generation = 0;
  query = $state('');
  hits = $state.raw<SearchHit[]>([]);
  searching = $state(false);
  error = $state('');

  constructor(backend: Pick<Backend, 'searchSessions' | 'searchIn'>, delay = 200, limit = 30) {
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
      const scope = this.#scope;
      const scoped = !!scope.project || !!scope.tag;
      const hits = (await (scoped ? this.#backend.searchIn(q, this.#limit, scope) : this.#backend.searchSessions(q, this.#limit))) ?? [];
      if (gen === this.#generation) this.#show(q, hits, '');
    } catch (err) {
      if (gen === this.#generation) this.#show(q, [], messageOf(err));
    }
  }

  /** Searches for query, within scope when given (what the list shows); the scope is kept for the next query. */
  set(query: string, scope?: Scope) {
    if (scope) this.#scope = scope;
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
