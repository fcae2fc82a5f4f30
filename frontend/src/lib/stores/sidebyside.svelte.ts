// Side by side: the group of columns the open session shows (its
// open_group_id, and the groups it follows: groupChain), and the targets
// the next message goes to (TargetsDraft). A column is one slot of the
// chain: its turns, oldest first, one per group. Its state is its newest
// turn's, as the turn store knows it live, else as the chain was read.
// While a blind group has no vote its columns are named "A", "B", … and
// nothing shows a target's name (the components read `blind`).
import { messageOf, type Backend } from '../api';
import type { GroupTarget, Session, TurnGroup, TurnState } from '../types';
import type { TurnStore } from './turns.svelte';

export type SideBySideBackend = Pick<Backend, 'groupChain'>;

/** The most targets one message goes to (store.MaxColumns). */
export const MaxColumns = 4;

/** One column of the group shown. */
export interface Column {
  slot: number;
  /** "A", "B", …: the column's name while the group is blind. */
  letter: string;
  /** What its header says: the target's label, or the letter while blind. */
  name: string;
  /** Its turns across the chain, oldest first. */
  turnIds: string[];
  /** Its newest turn: what Stop and "Continue with this one" act on. */
  last: string;
  state: TurnState;
}

/** A slot's letter: 0 → "A". */
export const letterOf = (slot: number) => String.fromCharCode(65 + slot);

/** A target's name on a column (store.GroupTarget.Label): "workflow · model · provider". */
export function targetLabel(t: GroupTarget): string {
  let s = t.model;
  if (t.provider) s += ` · ${t.provider}`;
  if (t.workflow) s = `${t.workflow} · ${s}`;
  return s;
}

export class SideBySide {
  #backend: SideBySideBackend;
  #turns: Pick<TurnStore, 'view' | 'summary'>;
  #gen = 0;

  /** The session the chain belongs to ('' when none is shown side by side). */
  sessionId = $state('');
  /** The groups shown, oldest first: the open group last. */
  chain = $state.raw<TurnGroup[]>([]);
  error = $state('');

  /** The open group: what a new message follows and Stop all stops. */
  readonly last: TurnGroup | null = $derived(this.chain[this.chain.length - 1] ?? null);
  /** Whether the session shows columns. */
  readonly active: boolean = $derived(this.chain.length > 0);
  /** The names are hidden: a blind group nobody has voted on. */
  readonly blind: boolean = $derived(this.chain.some((g) => g.blind) && !this.chain.some((g) => g.vote));
  /** Every turn of every column. */
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- made whole by the $derived, never changed in place
  readonly turnIds: ReadonlySet<string> = $derived(new Set(this.chain.flatMap((g) => (g.columns ?? []).map((c) => c.turn_id))));
  readonly columns: Column[] = $derived.by(() => this.#columnsOf());
  /** Some column runs: the composer's Stop and Esc stop them all. */
  readonly running: boolean = $derived(this.columns.some((c) => c.state === 'running'));
  /** The open group's columns have all ended (and there is more than one): time to vote. */
  readonly ended: boolean = $derived(this.columns.length > 1 && !this.running);
  /** Each slot's label, for the vote bar ("A", "B", … while blind). */
  readonly labels: string[] = $derived(this.columns.map((c) => c.name));

  constructor(backend: SideBySideBackend, turns: Pick<TurnStore, 'view' | 'summary'>) {
    this.#backend = backend;
    this.#turns = turns;
  }

  /** The conversation opened a session: its group, if it shows one, is read. */
  async show(session: Session | null) {
    const group = session?.open_group_id ?? '';
    if (!session || !group) {
      this.clear();
      return;
    }
    await this.load(session.id, group);
  }

  /** Reads a group's chain and shows it. */
  async load(sessionId: string, groupId: string) {
    const gen = ++this.#gen;
    try {
      const chain = (await this.#backend.groupChain(groupId)) ?? [];
      if (gen !== this.#gen) return;
      this.sessionId = sessionId;
      this.chain = chain;
      this.error = '';
    } catch (err) {
      if (gen !== this.#gen) return;
      this.sessionId = sessionId;
      this.chain = [];
      this.error = messageOf(err);
    }
  }

  /** Reads the open group again (its vote, its columns' states). */
  async refresh() {
    if (this.last) await this.load(this.sessionId, this.last.id);
  }

  /** Shows no columns. */
  clear() {
    this.#gen++;
    this.sessionId = '';
    this.chain = [];
    this.error = '';
  }

  /** The column a turn is in, if it is in one. */
  columnOf(turnId: string): Column | undefined {
    return this.columns.find((c) => c.turnIds.includes(turnId));
  }

  /** A turn's state: the live view's once loaded, else the stored row's, else the chain's. */
  #stateOf(turnId: string, read: TurnState): TurnState {
    const v = this.#turns.view(turnId);
    if (v.loaded) return v.state;
    return this.#turns.summary(turnId)?.state ?? read;
  }

  #columnsOf(): Column[] {
    const last = this.last;
    if (!last) return [];
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- scratch
    const slots = [...new Set((last.columns ?? []).map((c) => c.slot))].sort((a, b) => a - b);
    return slots.map((slot) => {
      const cells = this.chain.flatMap((g) => (g.columns ?? []).filter((c) => c.slot === slot));
      const newest = cells[cells.length - 1]!;
      const letter = letterOf(slot);
      const target = newest.target || (last.targets?.[slot] ? targetLabel(last.targets[slot]) : '');
      return {
        slot,
        letter,
        name: this.blind ? letter : target || letter,
        turnIds: cells.map((c) => c.turn_id),
        last: newest.turn_id,
        state: this.#stateOf(newest.turn_id, newest.state),
      };
    });
  }
}

/**
 * Where the next message goes besides the session's own model: the
 * targets picked (2 to MaxColumns make a side-by-side send), and whether
 * the names are hidden.
 */
export class TargetsDraft {
  /** The targets picked, in order. */
  targets = $state.raw<GroupTarget[]>([]);
  /** Hide the names (A, B, …) and shuffle the columns until a vote. */
  blind = $state(false);
  /** The picker is shown. */
  open = $state(false);

  /** Enough targets to send side by side. */
  get ready(): boolean {
    return this.targets.length >= 2;
  }

  get full(): boolean {
    return this.targets.length >= MaxColumns;
  }

  /** Adds a target; a duplicate or one past MaxColumns says why not. */
  add(t: GroupTarget): string {
    if (!t.model.trim() && !t.workflow) return 'Pick a model first.';
    if (this.full) return `Side by side sends to at most ${MaxColumns} targets.`;
    const target = { ...t, model: t.model.trim() };
    const label = targetLabel(target);
    if (this.targets.some((x) => targetLabel(x) === label)) return `${label} is already a target.`;
    this.targets = [...this.targets, target];
    return '';
  }

  remove(i: number) {
    this.targets = this.targets.filter((_, j) => j !== i);
  }

  /** Back to one model: the picker closes and forgets its targets. */
  reset() {
    this.targets = [];
    this.blind = false;
    this.open = false;
  }
}
