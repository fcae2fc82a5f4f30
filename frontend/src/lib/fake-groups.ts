// Side by side in the fake backend (fake.ts): groups of turns sent to
// several targets at once, as app/groups.go and backend/store/group.go
// keep them. Each column is a turn of the fake's own, streamed by its
// scripted turn machinery, at its own speed (a later column ticks more
// slowly), so the columns end at different times. Blind groups are
// "shuffled" by a fixed rotation, so tests know where each target lands.
// Votes and the board are the arena's (fake.ts keeps placeholders).
import { BackendError } from './api';
import { MaxColumns, targetLabel } from './stores/sidebyside.svelte';
import type { GroupRef, GroupSendRequest, GroupTarget, Session, TurnDetail, TurnGroup, TurnRef, Vote } from './types';

/** What the groups need of the fake backend. */
export interface GroupHost {
  session(id: string): Session;
  turn(id: string): TurnDetail | undefined;
  turnsOf(sessionId: string): TurnDetail[];
  /** A new running turn after the session's active turn (which it becomes). */
  newTurn(sessionId: string, message: string, workflow: string, model: string): TurnDetail;
  /** Streams a turn's script, each tick `slowdown` times the fake's tick. */
  start(turn: TurnDetail, slowdown: number): void;
  stopTurn(turnId: string): Promise<void>;
  /** The newest turn of the subtree under a turn (itself when it has none after it). */
  newestUnder(turnId: string): TurnDetail;
  id(prefix: string): string;
  now(): Date;
  /** The group's vote, if it has one (the arena fake's). */
  vote?(groupId: string): Vote | undefined;
}

interface Stored {
  id: string;
  session_id: string;
  follows_group_id: string;
  blind: boolean;
  targets: GroupTarget[];
  created_at: string;
}

export class FakeGroups {
  readonly #h: GroupHost;
  readonly #groups = new Map<string, Stored>();

  constructor(host: GroupHost) {
    this.#h = host;
  }

  /** SendSideBySide: every column starts at once. */
  send(req: GroupSendRequest): GroupRef {
    const send = req.send;
    if (!send.message.trim() && !send.images?.length) throw new BackendError('invalid', 'The message is empty.');
    if (!send.session_id) throw new BackendError('invalid', 'Side by side sends within a session: create it first.');
    const s = this.#h.session(send.session_id);
    if (this.#h.turnsOf(s.id).some((t) => t.state === 'running'))
      throw new BackendError('conflict', 'A turn is already running in this session. Stop it or wait for it to finish.');
    let targets: GroupTarget[];
    let parents: string[];
    let blind = !!req.blind;
    if (req.follows) {
      const prev = this.#stored(req.follows);
      if (prev.session_id !== s.id) throw new BackendError('invalid', `Side-by-side group ${req.follows} belongs to another session.`);
      const cols = this.#columns(prev.id);
      targets = cols.map((c) => prev.targets[c.group_slot ?? 0]!);
      parents = cols.map((c) => c.id);
      blind = prev.blind;
    } else {
      const n = req.targets?.length ?? 0;
      if (n < 2 || n > MaxColumns)
        throw new BackendError('invalid', `Send side by side to 2 to ${MaxColumns} models or workflows (${n} given).`);
      const parent = send.parent || s.active_turn_id;
      targets = blind ? rotated(req.targets!) : [...req.targets!];
      parents = targets.map(() => parent);
    }
    if (targets.length === 0) throw new BackendError('not_found', 'The columns of that group were deleted; there is nothing to send to.');
    const g: Stored = {
      id: this.#h.id('g'),
      session_id: s.id,
      follows_group_id: req.follows ?? '',
      blind,
      targets,
      created_at: this.#h.now().toISOString(),
    };
    this.#groups.set(g.id, g);
    const turns: TurnRef[] = [];
    targets.forEach((t, slot) => {
      s.active_turn_id = parents[slot]!;
      const turn = this.#h.newTurn(s.id, send.message, t.workflow || s.workflow, t.model);
      Object.assign(turn, { group_id: g.id, group_slot: slot, target: targetLabel(t) });
      turns.push({ turn_id: turn.id, session_id: s.id, seq: turn.seq });
    });
    s.active_turn_id = turns[0]!.turn_id;
    s.open_group_id = g.id;
    s.updated_at = g.created_at;
    // Started once all are stored: a column's first tick finds its siblings.
    turns.forEach((r, slot) => this.#h.start(this.#h.turn(r.turn_id)!, 1 + slot));
    return { group_id: g.id, session_id: s.id, turns };
  }

  /** GroupChain: the group and those it follows, oldest first. */
  chain(groupId: string): TurnGroup[] {
    const out: TurnGroup[] = [];
    for (let id = groupId; id && this.#groups.has(id); id = this.#groups.get(id)!.follows_group_id) out.unshift(this.#read(id));
    if (out.length === 0) throw new BackendError('not_found', `There is no side-by-side group ${groupId}.`);
    return out;
  }

  /** StopGroup: every running column of the group. */
  async stop(groupId: string) {
    this.#stored(groupId);
    for (const t of this.#columns(groupId)) if (t.state === 'running') await this.#h.stopTurn(t.id);
  }

  /** ContinueWith: that column's branch, to its end, becomes the active one; the session reads as one conversation. */
  continueWith(turnId: string): TurnRef {
    const t = this.#h.turn(turnId);
    if (!t) throw new BackendError('not_found', `There is no turn ${turnId}.`);
    const s = this.#h.session(t.session_id);
    const newest = this.#h.newestUnder(turnId);
    s.active_turn_id = newest.id;
    s.open_group_id = '';
    return { turn_id: newest.id, session_id: s.id, seq: newest.seq };
  }

  /** OpenGroup: the session shows the group side by side again, its first column's branch active. */
  open(groupId: string) {
    const g = this.#stored(groupId);
    const first = this.#columns(groupId)[0];
    if (!first) throw new BackendError('not_found', `The turns of side-by-side group ${groupId} were deleted.`);
    const s = this.#h.session(g.session_id);
    s.open_group_id = g.id;
    s.active_turn_id = this.#h.newestUnder(first.id).id;
  }

  #stored(id: string): Stored {
    const g = this.#groups.get(id);
    if (!g) throw new BackendError('not_found', `There is no side-by-side group ${id}.`);
    return g;
  }

  #columns(groupId: string): TurnDetail[] {
    const g = this.#stored(groupId);
    return this.#h
      .turnsOf(g.session_id)
      .filter((t) => t.group_id === groupId)
      .sort((a, b) => (a.group_slot ?? 0) - (b.group_slot ?? 0) || a.seq - b.seq);
  }

  #read(id: string): TurnGroup {
    const g = this.#stored(id);
    const vote = this.#h.vote?.(id);
    return {
      id: g.id,
      session_id: g.session_id,
      ...(g.follows_group_id ? { follows_group_id: g.follows_group_id } : {}),
      blind: g.blind,
      targets: g.targets.map((t) => ({ ...t })),
      created_at: g.created_at,
      columns: this.#columns(id).map((t) => ({ slot: t.group_slot ?? 0, turn_id: t.id, target: t.target ?? '', state: t.state })),
      ...(vote ? { vote: { ...vote } } : {}),
    };
  }

  /** The group, if there is one by that id. */
  get(id: string): TurnGroup | undefined {
    return this.#groups.has(id) ? this.#read(id) : undefined;
  }
}

// A blind group's order: each target one slot on (the Go side shuffles at
// random; a fixed order keeps tests exact).
function rotated<T>(ts: readonly T[]): T[] {
  return ts.map((_, i) => ts[(i + ts.length - 1) % ts.length]!);
}
