// The event pipeline: the one subscription's batches go in, per-turn views
// come out.
//
// Rules (the Go side's are in app/hub.go and app/coalesce.go):
//   - Each turn has a lastSeq: the newest seq accepted. A delivered item
//     covers first_seq..seq (tokens may be merged). An item with
//     seq <= lastSeq is a duplicate and dropped; one with
//     first_seq == lastSeq+1 is next and accepted; anything else is a gap:
//     the item is held, eventsAfter(turn, lastSeq) fetches the missing
//     range, which is applied in order before the held items.
//   - Opening a turn (review, or a running turn after a reload) fetches
//     getTurn(with events) and, for a running turn, eventsAfter(lastSeq);
//     live items arriving meanwhile are held, then deduplicated.
//   - Accepted events are applied once per animation frame, consecutive
//     tokens merged into one append, so a fast stream costs one store
//     update (and one markdown render) per frame per turn.
import { writable, type Readable, type Writable } from 'svelte/store';
import type { Backend } from '../api';
import type { AgentEvent, Delivered, TokenData } from '../types';
import { applyEvents, fromDetail } from './reducer';
import { emptyTurn, type TurnView } from './turnview';

export type PipelineBackend = Pick<Backend, 'eventsAfter' | 'getTurn'>;

export interface PipelineOptions {
  /** Schedules the next frame; requestAnimationFrame by default. */
  raf?: (cb: () => void) => unknown;
  /** Called after a frame applied events to a turn. */
  onApplied?: (view: TurnView, events: readonly AgentEvent[]) => void;
  /** Told about failures that the pipeline worked around. */
  onWarning?: (message: string) => void;
}

interface Entry {
  id: string;
  store: Writable<TurnView>;
  view: TurnView;
  /** The newest seq accepted (queued or applied). */
  lastSeq: number;
  /** Accepted, waiting for the next frame. */
  pending: AgentEvent[];
  /** Non-null while catching up: live items wait here. */
  held: Delivered[] | null;
  busy: Promise<void> | null;
}

export class EventPipeline {
  private readonly entries = new Map<string, Entry>();
  private readonly dirty = new Set<Entry>();
  private scheduled = false;
  private readonly raf: (cb: () => void) => unknown;

  constructor(
    private readonly backend: PipelineBackend,
    private readonly opts: PipelineOptions = {},
  ) {
    this.raf = opts.raf ?? ((cb) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => cb()) : setTimeout(cb, 16)));
  }

  /** The live view of a turn (created empty if unknown). */
  turn(id: string): Readable<TurnView> {
    return this.entry(id).store;
  }

  /** The current view of a turn, if tracked. */
  peek(id: string): TurnView | undefined {
    return this.entries.get(id)?.view;
  }

  /** Sets what the events do not carry (the user message, model...). */
  describe(id: string, patch: Partial<TurnView>) {
    const e = this.entry(id);
    e.view = { ...e.view, ...patch };
    e.store.set(e.view);
  }

  /** Feeds one batch from the subscription. */
  ingest(batch: readonly Delivered[]) {
    for (const d of batch) {
      if (d && d.turn_id) this.accept(this.entry(d.turn_id), d);
    }
  }

  /**
   * Loads a turn for display: its stored detail with events and, while it
   * runs, whatever the hub has after that. Live items arriving meanwhile
   * are held and deduplicated. A turn already tracked live only catches up.
   */
  load(id: string): Promise<void> {
    const e = this.entry(id);
    if (e.busy) return e.busy;
    if (e.view.loaded || e.lastSeq > 0) return Promise.resolve();
    e.held = e.held ?? [];
    e.busy = (async () => {
      try {
        const d = await this.backend.getTurn(id, true);
        const view = fromDetail(d);
        e.view = { ...view, userMessage: view.userMessage || e.view.userMessage };
        e.lastSeq = Math.max(e.lastSeq, e.view.lastSeq);
        e.pending = e.pending.filter((ev) => ev.seq > e.lastSeq);
        e.store.set(e.view);
        if (d.state === 'running') await this.fetchAfter(e);
      } catch (err) {
        this.warn(`Could not load turn ${id}: ${String((err as Error)?.message ?? err)}`);
        e.view = { ...e.view, loaded: true };
        e.store.set(e.view);
      } finally {
        this.release(e);
      }
    })();
    return e.busy;
  }

  /**
   * Loads a tracked turn again from the store: its state changed with no
   * event (its process died and it was marked interrupted). A turn not
   * loaded yet needs nothing: it is fetched fresh when shown.
   */
  reload(id: string): Promise<void> {
    const e = this.entries.get(id);
    if (!e) return Promise.resolve();
    if (e.busy) return e.busy.then(() => this.reload(id));
    if (!e.view.loaded && e.lastSeq === 0) return Promise.resolve();
    e.view = { ...e.view, loaded: false };
    e.lastSeq = 0;
    e.pending = [];
    this.dirty.delete(e);
    return this.load(id);
  }

  /** After the stream reconnected: running turns fetch what they missed. */
  resync() {
    for (const e of this.entries.values()) {
      if (e.view.state === 'running' && e.lastSeq > 0 && !e.held) this.catchUp(e, []);
    }
  }

  /** Applies everything accepted now instead of at the next frame. */
  flush() {
    this.scheduled = false;
    const dirty = [...this.dirty];
    this.dirty.clear();
    for (const e of dirty) {
      if (e.pending.length === 0) continue;
      const evs = e.pending;
      e.pending = [];
      e.view = applyEvents(e.view, mergeTokens(evs));
      e.store.set(e.view);
      this.opts.onApplied?.(e.view, evs);
    }
  }

  /** Waits until no turn is catching up (for tests and callers that need the result). */
  async settled(): Promise<void> {
    for (;;) {
      const busy = [...this.entries.values()].map((e) => e.busy).filter((b): b is Promise<void> => !!b);
      if (busy.length === 0) return;
      await Promise.all(busy);
    }
  }

  /** Forgets a turn (its session was deleted). */
  forget(id: string) {
    const e = this.entries.get(id);
    if (!e) return;
    this.entries.delete(id);
    this.dirty.delete(e);
  }

  private entry(id: string): Entry {
    let e = this.entries.get(id);
    if (!e) {
      const view = emptyTurn(id);
      e = { id, store: writable(view), view, lastSeq: 0, pending: [], held: null, busy: null };
      this.entries.set(id, e);
    }
    return e;
  }

  private accept(e: Entry, d: Delivered) {
    if (e.held) {
      e.held.push(d);
      return;
    }
    if (d.seq <= e.lastSeq) return; // already have it
    const first = d.first_seq || d.seq;
    if (first === e.lastSeq + 1) {
      this.enqueue(e, d);
      return;
    }
    // A gap (or a merged run overlapping what we have): fetch the range.
    this.catchUp(e, [d]);
  }

  private catchUp(e: Entry, held: Delivered[]) {
    e.held = held;
    e.busy = (async () => {
      try {
        await this.fetchAfter(e);
      } catch (err) {
        this.warn(`Could not fetch the missing events of turn ${e.id}: ${String((err as Error)?.message ?? err)}`);
      } finally {
        this.release(e);
      }
    })();
  }

  private async fetchAfter(e: Entry) {
    const evs = (await this.backend.eventsAfter(e.id, e.lastSeq)) ?? [];
    for (const ev of [...evs].sort((a, b) => a.seq - b.seq)) {
      if (ev.seq > e.lastSeq) this.enqueue(e, ev);
    }
  }

  // Ends a catch-up: held items are applied after the fetched range. One
  // still not contiguous is applied anyway (the range was asked for once;
  // the live view must not stall); one overlapping what we have is dropped.
  private release(e: Entry) {
    const held = e.held ?? [];
    e.held = null;
    e.busy = null;
    for (const d of held) {
      if (d.seq <= e.lastSeq) continue;
      if ((d.first_seq || d.seq) <= e.lastSeq) continue;
      this.enqueue(e, d);
    }
  }

  private enqueue(e: Entry, ev: AgentEvent) {
    e.lastSeq = ev.seq;
    e.pending.push(ev);
    this.dirty.add(e);
    if (!this.scheduled) {
      this.scheduled = true;
      this.raf(() => this.flush());
    }
  }

  private warn(msg: string) {
    this.opts.onWarning?.(msg);
  }
}

/** Merges consecutive tokens of one stage into one event. */
export function mergeTokens(evs: readonly AgentEvent[]): AgentEvent[] {
  const out: AgentEvent[] = [];
  for (const ev of evs) {
    const last = out[out.length - 1];
    if (ev.type === 'token' && last?.type === 'token' && last.stage_id === ev.stage_id) {
      const text = ((last.data as TokenData)?.text ?? '') + ((ev.data as TokenData)?.text ?? '');
      out[out.length - 1] = { ...last, seq: ev.seq, at: ev.at, data: { text } };
    } else {
      out.push(ev);
    }
  }
  return out;
}
