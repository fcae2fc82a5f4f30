// The one store of turns. Each turn the window knows has one entry: its
// stored summary (a row of listTurns, or the turn just sent) and its live
// view (its events folded by reducer.ts). Components read it through the
// selectors (view, shown, status, summary, stages); nothing else holds a
// turn's state.
//
// Events (the Go side's rules are in app/hub.go and app/coalesce.go):
//   - Each turn has a lastSeq: the newest seq accepted. A delivered item
//     covers first_seq..seq (tokens may be merged). An item with
//     seq <= lastSeq is a duplicate and dropped; one with
//     first_seq == lastSeq+1 is next and accepted; anything else is a gap:
//     the item is held, eventsAfter(turn, lastSeq) fetches the missing
//     range, which is applied in order before the held items.
//   - Loading a turn (review, or a running turn after a reload) fetches
//     getTurn(with events) and, for a running turn, eventsAfter(lastSeq);
//     live items arriving meanwhile are held, then deduplicated.
//   - Accepted events are applied once per animation frame, consecutive
//     tokens merged into one append, so a fast stream costs one update
//     (and one markdown render) per frame per turn.
//
// Memory: what shows a turn pins it (pin). A finished turn of the open
// session nobody pins keeps its view while it is among the KEEP most
// recently shown, then drops back to its row, and is loaded again if it
// comes back on screen. Opening another session drops the turns of the
// others that are neither pinned nor running, and a deleted session's are
// forgotten.
import { SvelteMap } from 'svelte/reactivity';
import type { Backend } from '../api';
import type { AgentRun, TurnDetail } from '../generated';
import type { AgentEvent, Delivered, Resolved, StageResult, Turn, TurnState } from '../types';
import { applyEvents, fromDetail } from './reducer';
import { emptyTurn, type TurnView } from './turnview';

export type TurnsBackend = Pick<Backend, 'eventsAfter' | 'getTurn'>;

/** What a turn ran with, as stored with it: its settings and its agents' own. */
export interface TurnSettings {
  resolved: Resolved;
  agents: Record<string, AgentRun>;
}

/** A turn's stored settings; null for a turn stored before turns kept them. */
function settingsOf(d: TurnDetail): TurnSettings | null {
  return d.settings ? { resolved: d.settings, agents: d.agents ?? {} } : null;
}

export interface TurnsOptions {
  /** Schedules the next frame; requestAnimationFrame by default. */
  raf?: (cb: () => void) => unknown;
  /** Called after a frame applied events to a turn. */
  onApplied?: (view: TurnView, events: readonly AgentEvent[]) => void;
  /** Told about failures that the store worked around. */
  onWarning?: (message: string) => void;
  /** Finished, unpinned turns of the open session that keep their view. */
  keep?: number;
}

class Entry {
  /** The live view: what the events and the stored detail say. */
  view: TurnView = $state.raw(emptyTurn(''));
  /** The row the store listed, kept up to date when the turn ends. */
  summary: Turn | null = $state.raw(null);
  /** The stored stage results (the diagnostics), once fetched for a finished turn. */
  stages: StageResult[] | null = $state.raw(null);
  /** What the turn ran with (instructions, sampling), where each came from, and its agents' own; once read. */
  settings: TurnSettings | null = $state.raw(null);
  /** The newest seq accepted (queued or applied). */
  lastSeq = 0;
  /** Accepted, waiting for the next frame. */
  pending: AgentEvent[] = [];
  /** Non-null while catching up: live items wait here. */
  held: Delivered[] | null = null;
  busy: Promise<void> | null = null;
  /** How many things on screen show it. */
  pins = 0;

  constructor(readonly id: string) {
    this.view = emptyTurn(id);
  }

  get sessionId(): string {
    return this.view.sessionId || this.summary?.session_id || '';
  }

  get running(): boolean {
    return (this.view.loaded ? this.view.state : (this.summary?.state ?? this.view.state)) === 'running';
  }
}

const TERMINAL = new Set<AgentEvent['type']>(['turn_completed', 'error', 'cancelled', 'final_answer']);

export class TurnStore {
  readonly #entries = new SvelteMap<string, Entry>();
  /** Turns with events waiting for the next frame: bookkeeping, not state. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity
  readonly #dirty = new Set<Entry>();
  /** Finished, unpinned turns of the open session, least recently shown first. */
  #recent: string[] = [];
  #open = '';
  #scheduled = false;
  readonly #raf: (cb: () => void) => unknown;
  readonly #keep: number;

  constructor(
    private readonly backend: TurnsBackend,
    private readonly opts: TurnsOptions = {},
  ) {
    this.#raf =
      opts.raf ?? ((cb) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => cb()) : setTimeout(cb, 16)));
    this.#keep = opts.keep ?? 24;
  }

  // ---- selectors: reactive reads, safe in templates and $derived ----

  /** The live view of a turn (an empty one, not loaded, if unknown). */
  view(id: string): TurnView {
    return this.#entries.get(id)?.view ?? emptyTurn(id);
  }

  /** The stored row of a turn, if listed or sent in this window. */
  summary(id: string): Turn | undefined {
    return this.#entries.get(id)?.summary ?? undefined;
  }

  /** The turn's state: its view's once loaded, else its summary's. */
  status(id: string): TurnState {
    const e = this.#entries.get(id);
    if (!e) return 'running';
    return e.view.loaded ? e.view.state : (e.summary?.state ?? e.view.state);
  }

  /** What to show for a turn: its view, with the summary's facts until it is loaded. */
  shown(id: string): TurnView {
    const e = this.#entries.get(id);
    if (!e) return emptyTurn(id);
    const v = e.view;
    const s = e.summary;
    if (!s) return v;
    if (v.loaded)
      return v.seq && (v.userMessage || v.continues) && v.parentId === s.parent_turn_id && v.copied === (s.copied ?? '')
        ? v
        : {
            ...v,
            seq: v.seq || s.seq,
            userMessage: v.userMessage || s.user_message,
            continues: v.continues || s.continues,
            copied: v.copied || s.copied || '',
            parentId: s.parent_turn_id,
          };
    return {
      ...v,
      sessionId: s.session_id,
      seq: s.seq,
      userMessage: v.userMessage || s.user_message,
      continues: s.continues,
      copied: s.copied ?? '',
      parentId: s.parent_turn_id,
      model: s.model,
      workflow: s.workflow,
      state: s.state,
      startedAt: s.started_at,
      completedAt: s.completed_at,
      finalText: s.final_text,
      termination: s.termination?.kind ? s.termination : null,
    };
  }

  /** The stored stage results of a finished turn, once fetched (fetchStages). */
  stages(id: string): StageResult[] | null {
    return this.#entries.get(id)?.stages ?? null;
  }

  /** What a turn ran with, as stored with it (null until read, or for an older turn). */
  settings(id: string): TurnSettings | null {
    return this.#entries.get(id)?.settings ?? null;
  }

  /** How many turns hold a view, loaded or live (for tests and the memory check). */
  get size(): number {
    return this.#entries.size;
  }

  // ---- commands ----

  /** The current view without tracking it (for actions, not templates). */
  peek(id: string): TurnView | undefined {
    return this.#entries.get(id)?.view;
  }

  /**
   * A session was opened: these are its listed rows. Turns of other
   * sessions that nothing shows and that do not run are dropped.
   */
  open(sessionId: string, rows: readonly Turn[]) {
    this.#open = sessionId;
    this.#recent = [];
    for (const e of [...this.#entries.values()]) {
      if (e.sessionId !== sessionId && e.pins === 0 && !e.running && !e.busy) this.#drop(e);
    }
    this.remember(rows);
  }

  /** Adds or replaces stored rows (a page of listTurns, a turn just sent). */
  remember(rows: readonly Turn[]) {
    for (const r of rows) {
      const e = this.#entry(r.id);
      e.summary = r;
    }
  }

  /** Sets what the events do not carry (the user message, model...). */
  describe(id: string, patch: Partial<TurnView>) {
    const e = this.#entry(id);
    e.view = { ...e.view, ...patch };
  }

  /**
   * Marks a turn as shown; the returned function unmarks it. A finished
   * turn nobody shows may lose its view (see the file's comment).
   */
  pin(id: string): () => void {
    const e = this.#entry(id);
    e.pins++;
    this.#recent = this.#recent.filter((x) => x !== id);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      e.pins--;
      if (e.pins === 0 && this.#entries.get(id) === e) this.#settle(e);
    };
  }

  /** Forgets the turns of a session (it was deleted). */
  forgetSession(sessionId: string) {
    for (const e of [...this.#entries.values()]) if (e.sessionId === sessionId) this.#drop(e);
  }

  /** Feeds one batch from the subscription. */
  ingest(batch: readonly Delivered[]) {
    for (const d of batch) {
      if (d && d.turn_id) this.#accept(this.#entry(d.turn_id), d);
    }
  }

  /**
   * Loads a turn for display: its stored detail with events and, while it
   * runs, whatever the hub has after that. Live items arriving meanwhile
   * are held and deduplicated. A turn already tracked live only catches up.
   */
  load(id: string): Promise<void> {
    const e = this.#entry(id);
    if (e.busy) return e.busy;
    if (e.view.loaded || e.lastSeq > 0) return Promise.resolve();
    e.held = e.held ?? [];
    e.busy = (async () => {
      try {
        const d = await this.backend.getTurn(id, true);
        const view = fromDetail(d);
        // A running turn's message is stored when it ends: keep what was sent.
        e.view = {
          ...view,
          userMessage: view.userMessage || e.view.userMessage,
          userImages: view.userImages.length ? view.userImages : e.view.userImages,
        };
        if (d.state !== 'running') e.stages = d.stages ?? [];
        e.settings = settingsOf(d);
        e.lastSeq = Math.max(e.lastSeq, e.view.lastSeq);
        e.pending = e.pending.filter((ev) => ev.seq > e.lastSeq);
        if (d.state === 'running') await this.#fetchAfter(e);
      } catch (err) {
        this.#warn(`Could not load turn ${id}: ${messageOf(err)}`);
        e.view = { ...e.view, loaded: true };
      } finally {
        this.#release(e);
      }
    })();
    return e.busy;
  }

  /**
   * Reads the stored stage results of a finished turn (the diagnostics of
   * a turn that ended live). Answers an error message, or '' when done.
   */
  async fetchStages(id: string): Promise<string> {
    try {
      const d = await this.backend.getTurn(id, false);
      const e = this.#entries.get(id);
      if (e) {
        e.stages = d.stages ?? [];
        e.settings = settingsOf(d) ?? e.settings;
        if (d.result && !e.view.result) e.view = { ...e.view, result: d.result };
        if (!e.view.seq) e.view = { ...e.view, seq: d.seq };
      }
      return '';
    } catch (err) {
      return messageOf(err);
    }
  }

  /**
   * Loads a tracked turn again from the store: its state changed with no
   * event (its process died and it was marked interrupted). A turn not
   * loaded yet needs nothing: it is fetched fresh when shown.
   */
  reload(id: string): Promise<void> {
    const e = this.#entries.get(id);
    if (!e) return Promise.resolve();
    if (e.busy) return e.busy.then(() => this.reload(id));
    if (!e.view.loaded && e.lastSeq === 0) return Promise.resolve();
    e.view = { ...e.view, loaded: false };
    e.stages = null;
    e.lastSeq = 0;
    e.pending = [];
    this.#dirty.delete(e);
    return this.load(id);
  }

  /** After the stream reconnected: running turns fetch what they missed. */
  resync() {
    for (const e of this.#entries.values()) {
      if (e.view.state === 'running' && e.lastSeq > 0 && !e.held) this.#catchUp(e, []);
    }
  }

  /** Applies everything accepted now instead of at the next frame. */
  flush() {
    this.#scheduled = false;
    const dirty = [...this.#dirty];
    this.#dirty.clear();
    for (const e of dirty) {
      if (e.pending.length === 0) continue;
      const evs = e.pending;
      e.pending = [];
      e.view = applyEvents(e.view, mergeTokens(evs));
      if (evs.some((x) => TERMINAL.has(x.type))) this.#ended(e);
      this.opts.onApplied?.(e.view, evs);
      if (e.pins === 0 && !e.running) this.#settle(e);
    }
  }

  /** Waits until no turn is catching up (for tests and callers that need the result). */
  async settled(): Promise<void> {
    for (;;) {
      const busy = [...this.#entries.values()].map((e) => e.busy).filter((b): b is Promise<void> => !!b);
      if (busy.length === 0) return;
      await Promise.all(busy);
    }
  }

  // ---- inside ----

  #entry(id: string): Entry {
    let e = this.#entries.get(id);
    if (!e) {
      e = new Entry(id);
      this.#entries.set(id, e);
    }
    return e;
  }

  // The turn ended live: its row says so too, and its stored stages are
  // read again when asked for.
  #ended(e: Entry) {
    const v = e.view;
    if (v.state === 'running') return;
    e.stages = null;
    if (e.summary)
      e.summary = {
        ...e.summary,
        state: v.state,
        final_text: v.finalText,
        completed_at: v.completedAt,
        outcome: v.result?.outcome ?? '',
        termination: v.termination ?? { kind: '' },
      };
  }

  // A turn nothing shows any more: a finished row of the open session
  // keeps its view while it is recent. Any other stays until another
  // session is opened (open drops it): a turn can end before the page
  // knows its id (SendMessage's or ReplayTurn's answer is still on its
  // way), and what describe adds then must land on the ended view.
  #settle(e: Entry) {
    if (e.pins > 0 || e.busy || e.running || e.pending.length > 0) return;
    if (e.sessionId !== this.#open || !e.summary) return;
    this.#recent = [...this.#recent.filter((x) => x !== e.id), e.id];
    while (this.#recent.length > this.#keep) {
      const old = this.#entries.get(this.#recent.shift()!);
      if (old && old.pins === 0 && !old.busy && !old.running) this.#unload(old);
    }
  }

  // Drops a turn's view, keeping its row: it is loaded again when shown.
  #unload(e: Entry) {
    e.view = emptyTurn(e.id, { userMessage: e.view.userMessage, userImages: e.view.userImages, sessionId: e.sessionId });
    e.stages = null;
    e.lastSeq = 0;
    e.pending = [];
    this.#dirty.delete(e);
  }

  #drop(e: Entry) {
    this.#entries.delete(e.id);
    this.#dirty.delete(e);
    this.#recent = this.#recent.filter((x) => x !== e.id);
  }

  #accept(e: Entry, d: Delivered) {
    if (e.held) {
      e.held.push(d);
      return;
    }
    if (d.seq <= e.lastSeq) return; // already have it
    const first = d.first_seq || d.seq;
    if (first === e.lastSeq + 1) {
      this.#enqueue(e, d);
      return;
    }
    // A gap (or a merged run overlapping what we have): fetch the range.
    this.#catchUp(e, [d]);
  }

  #catchUp(e: Entry, held: Delivered[]) {
    e.held = held;
    e.busy = (async () => {
      try {
        await this.#fetchAfter(e);
      } catch (err) {
        this.#warn(`Could not fetch the missing events of turn ${e.id}: ${messageOf(err)}`);
      } finally {
        this.#release(e);
      }
    })();
  }

  async #fetchAfter(e: Entry) {
    const evs = (await this.backend.eventsAfter(e.id, e.lastSeq)) ?? [];
    for (const ev of [...evs].sort((a, b) => a.seq - b.seq)) {
      if (ev.seq > e.lastSeq) this.#enqueue(e, ev);
    }
  }

  // Ends a catch-up: held items are applied after the fetched range. One
  // still not contiguous is applied anyway (the range was asked for once;
  // the live view must not stall); one overlapping what we have is dropped.
  #release(e: Entry) {
    const held = e.held ?? [];
    e.held = null;
    e.busy = null;
    for (const d of held) {
      if (d.seq <= e.lastSeq) continue;
      if ((d.first_seq || d.seq) <= e.lastSeq) continue;
      this.#enqueue(e, d);
    }
  }

  #enqueue(e: Entry, ev: AgentEvent) {
    e.lastSeq = ev.seq;
    e.pending.push(ev);
    this.#dirty.add(e);
    if (!this.#scheduled) {
      this.#scheduled = true;
      this.#raf(() => this.flush());
    }
  }

  #warn(msg: string) {
    this.opts.onWarning?.(msg);
  }
}

function messageOf(err: unknown): string {
  return String((err as Error)?.message ?? err);
}

/** Merges consecutive tokens of one stage into one event. */
export function mergeTokens(evs: readonly AgentEvent[]): AgentEvent[] {
  const out: AgentEvent[] = [];
  for (const ev of evs) {
    const last = out[out.length - 1];
    if (ev.type === 'token' && last?.type === 'token' && last.stage_id === ev.stage_id) {
      const text = (last.data?.text ?? '') + (ev.data?.text ?? '');
      out[out.length - 1] = { ...last, seq: ev.seq, at: ev.at, data: { text } };
    } else {
      out.push(ev);
    }
  }
  return out;
}
