// The fake backend's arena: votes on side-by-side groups and the
// leaderboard computed from them, kept in memory as the Go side keeps them
// (store/votes.go, arena/arena.go), for tests and the demo.
//
// Rules it keeps as the store does: one vote per group (a second replaces
// it); a win names one of the group's turns, a tie or "both bad" names
// none; no vote while a column runs (conflict); a note of at most 4000
// bytes. The board is fitted, never written down: Bradley–Terry strengths
// by the minorization–maximization iteration (ties count half a win each),
// on the Elo scale (400 points is 10:1 odds, 1000 the mean), with a 95%
// interval from a bootstrap over the votes drawn with a seeded generator,
// so the same votes give the same board.
//
// The groups voted on come from `group` (the groups fake, fake-groups.ts,
// once the two are joined) or, before that and in seeds, from the groups
// this module was given (`addGroup`).
import { BackendError } from './api';
import { mulberry32 } from './prng';
import type { FakeBackend } from './fake';
import type { ArenaBoard, ArenaRating, BoardRequest, Session, TurnGroup, Vote, VoteFilter, VoteRecord } from './types';

export const MaxVoteNote = 4000;

export interface FakeArenaDeps {
  /** A group of the groups fake, if it has one by that id. */
  group?: (id: string) => TurnGroup | undefined;
  session: (id: string) => Session | undefined;
  /** The message a turn answered. */
  message: (turnId: string) => string;
  id: () => string;
  now: () => Date;
}

export class FakeArena {
  /** Groups given here (seeds, tests) rather than by the groups fake. */
  readonly groups = new Map<string, TurnGroup>();
  /** Votes by group. */
  readonly votes = new Map<string, Vote>();
  #deps: FakeArenaDeps;

  constructor(deps: FakeArenaDeps) {
    this.#deps = deps;
  }

  addGroup(g: TurnGroup): TurnGroup {
    this.groups.set(g.id, g);
    return g;
  }

  /** The group's vote, if any (what GetGroup puts in TurnGroup.vote). */
  voteOf(groupId: string): Vote | undefined {
    const v = this.votes.get(groupId);
    return v && { ...v };
  }

  vote(v: Vote): Vote {
    const g = this.#group(v.group_id);
    if (!g) throw new BackendError('not_found', `There is no side-by-side group ${v.group_id}.`);
    const out: Vote = { ...v, note: (v.note ?? '').trim() };
    if (out.outcome === 'win') {
      if (!out.winner_turn_id) throw new BackendError('invalid', 'A vote for a winner must say which answer won.');
    } else if (out.outcome === 'tie' || out.outcome === 'both_bad') {
      delete out.winner_turn_id;
    } else {
      throw new BackendError('invalid', `"${String(out.outcome)}" is not a vote: use win, tie or both_bad.`);
    }
    const bytes = new TextEncoder().encode(out.note).length;
    if (bytes > MaxVoteNote) throw new BackendError('invalid', `The note is too long (${bytes} bytes; at most ${MaxVoteNote}).`);
    const columns = g.columns ?? [];
    if (columns.length < 2) throw new BackendError('invalid', `A vote compares at least two answers; this group has ${columns.length}.`);
    if (out.outcome === 'win' && !columns.some((c) => c.turn_id === out.winner_turn_id))
      throw new BackendError('invalid', `Turn ${out.winner_turn_id} is not one of this group's answers.`);
    if (columns.some((c) => c.state === 'running'))
      throw new BackendError('conflict', 'Wait for every answer to finish (or stop them) before you vote.');
    Object.assign(out, { id: this.#deps.id(), blind: g.blind, created_at: this.#deps.now().toISOString() });
    this.votes.set(g.id, out);
    if (this.groups.has(g.id)) this.groups.set(g.id, { ...g, vote: { ...out } });
    return { ...out };
  }

  /** Votes with what they compared, newest first (store.ListVotes). */
  list(f: VoteFilter = {}): VoteRecord[] {
    const out: VoteRecord[] = [];
    for (const v of this.votes.values()) {
      const g = this.#group(v.group_id);
      const s = g && this.#deps.session(g.session_id);
      if (!g || !s) continue;
      const project = s.project_id ?? '';
      if (f.project === '-' ? project !== '' : f.project && project !== f.project) continue;
      if (f.session_id && s.id !== f.session_id) continue;
      if (f.since && v.created_at < f.since) continue;
      const columns = [...(g.columns ?? [])].sort((a, b) => a.slot - b.slot);
      out.push({
        ...v,
        session_id: s.id,
        session_title: s.title,
        project_id: project,
        message: columns[0] ? this.#deps.message(columns[0].turn_id) : '',
        targets: columns.map((c) => c.target),
        winner: columns.find((c) => c.turn_id === v.winner_turn_id)?.target,
      });
    }
    out.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
    return out.slice(0, Math.min(f.limit || 200, 10_000));
  }

  /** The leaderboard of a project's votes, or of all (app.ArenaBoard). */
  board(req: BoardRequest = {}): ArenaBoard {
    const votes = this.list({ project: req.project, limit: 10_000 }).map((r) => ({ targets: r.targets ?? [], winner: r.winner ?? '' }));
    return rate(votes);
  }

  #group(id: string): TurnGroup | undefined {
    return this.#deps.group?.(id) ?? this.groups.get(id);
  }
}

/** One vote as the board reads it: its group's targets and its winner ('' for a tie or both bad). */
export interface BoardVote {
  targets: string[];
  winner: string;
}

interface Pair {
  a: number;
  b: number;
  /** 1: a won, 0: b won, 0.5: a tie. */
  score: number;
}

const BootstrapRounds = 200;

/** What the board says of how it was fitted (arena.Method). */
export const Method = 'bradley-terry (ties half), 95% bootstrap';

/**
 * Fits the board of the votes: a win beats each other target of its
 * group, a tie or "both bad" ties every pair. Targets with no votes are
 * listed last, unranked (the extra targets, when given).
 */
export function rate(votes: BoardVote[], extra: string[] = []): ArenaBoard {
  const names: string[] = [];
  const index = new Map<string, number>();
  const idOf = (t: string) => {
    let i = index.get(t);
    if (i === undefined) {
      i = names.length;
      index.set(t, i);
      names.push(t);
    }
    return i;
  };
  const perVote = votes.map((v) => pairsOf(v, idOf));
  const voted = names.length;
  for (const t of extra) idOf(t);

  const pairs = perVote.flat();
  const strength = fit(pairs, voted);
  const rng = mulberry32(0x5eed + votes.length);
  const samples: number[][] = Array.from({ length: voted }, () => []);
  for (let r = 0; r < BootstrapRounds && perVote.length > 0; r++) {
    const drawn: Pair[] = [];
    for (let k = 0; k < perVote.length; k++) drawn.push(...perVote[Math.floor(rng() * perVote.length)]!);
    const s = fit(drawn, voted);
    for (let i = 0; i < voted; i++) samples[i]!.push(s[i]!);
  }

  const ratings: ArenaRating[] = names.map((target, i) => {
    const r: ArenaRating = { target, rank: 0, score: 0, low: 0, high: 0, votes: 0, wins: 0, losses: 0, ties: 0 };
    if (i >= voted) return r;
    r.score = round(strength[i]!);
    const sorted = [...samples[i]!].sort((x, y) => x - y);
    r.low = round(Math.min(r.score, quantile(sorted, 0.025)));
    r.high = round(Math.max(r.score, quantile(sorted, 0.975)));
    return r;
  });
  for (const ps of perVote) {
    const seen = new Set<number>();
    for (const p of ps) {
      seen.add(p.a).add(p.b);
      const a = ratings[p.a]!;
      const b = ratings[p.b]!;
      if (p.score === 0.5) {
        a.ties++;
        b.ties++;
      } else if (p.score === 1) {
        a.wins++;
        b.losses++;
      } else {
        b.wins++;
        a.losses++;
      }
    }
    for (const i of seen) ratings[i]!.votes++;
  }
  const ranked = ratings.filter((r) => r.votes > 0).sort((x, y) => y.score - x.score || x.target.localeCompare(y.target));
  ranked.forEach((r, i) => (r.rank = i + 1));
  const unranked = ratings.filter((r) => r.votes === 0).sort((x, y) => x.target.localeCompare(y.target));
  return { method: Method, votes: votes.length, comparisons: pairs.length, ratings: [...ranked, ...unranked] };
}

function pairsOf(v: BoardVote, idOf: (t: string) => number): Pair[] {
  const ids = [...new Set(v.targets)].map(idOf);
  const out: Pair[] = [];
  if (v.winner) {
    const w = idOf(v.winner);
    for (const o of ids) if (o !== w) out.push({ a: w, b: o, score: 1 });
    return out;
  }
  for (let i = 0; i < ids.length; i++) for (let j = i + 1; j < ids.length; j++) out.push({ a: ids[i]!, b: ids[j]!, score: 0.5 });
  return out;
}

/**
 * Bradley–Terry strengths by Hunter's MM iteration, with a weak prior (one
 * tie of each target against a virtual average player) so that a target
 * that only won, or only lost, still has a finite score. Answers Elo-scale
 * points centred on 1000.
 */
function fit(pairs: Pair[], n: number): number[] {
  if (n === 0) return [];
  let p = new Array<number>(n).fill(1);
  for (let iter = 0; iter < 200; iter++) {
    const wins = new Array<number>(n).fill(0.5);
    const denom = p.map((pi) => 1 / (pi + 1));
    for (const { a, b, score } of pairs) {
      wins[a]! += score;
      wins[b]! += 1 - score;
      const d = 1 / (p[a]! + p[b]!);
      denom[a]! += d;
      denom[b]! += d;
    }
    const next = p.map((_, i) => wins[i]! / denom[i]!);
    const mean = Math.exp(next.reduce((s, x) => s + Math.log(x), 0) / n);
    const normed = next.map((x) => x / mean);
    const moved = normed.reduce((m, x, i) => Math.max(m, Math.abs(x - p[i]!)), 0);
    p = normed;
    if (moved < 1e-9) break;
  }
  return p.map((x) => 1000 + (400 * Math.log(x)) / Math.LN10);
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (at - lo);
}

function round(x: number): number {
  return Math.round(x * 10) / 10;
}

/** What seedArena needs of the fake backend. */
type Seedable = Pick<FakeBackend, 'addSession' | 'addTurn' | 'arena'>;

/**
 * The demo's votes: a session of two-column blind groups on four models,
 * voted over the last days, so the Arena page has a board to show.
 */
export function seedArena(b: Seedable, at: Date) {
  const models = ['llama3.2:3b · ollama', 'qwen2.5-coder:7b · ollama', 'gpt-4o-mini · openai', 'deepseek-chat · deepseek'];
  // [left, right, outcome]: an index wins, 't' ties, 'x' is both bad.
  const votes: Array<[number, number, number | 't' | 'x', string]> = [
    [0, 2, 2, 'Clearer example.'],
    [1, 3, 3, ''],
    [2, 3, 't', ''],
    [0, 1, 1, 'The 3b model missed the edge case.'],
    [2, 0, 2, ''],
    [3, 0, 3, ''],
    [1, 2, 2, ''],
    [3, 2, 2, 'Both fine; this one is shorter.'],
    [0, 3, 'x', 'Neither ran the code.'],
    [1, 0, 1, ''],
  ];
  const s = b.addSession('Arena: which model explains closures best?', new Date(at.getTime() - votes.length * 3600_000));
  votes.forEach(([l, r, outcome, note], i) => {
    const when = new Date(at.getTime() - (votes.length - i) * 3600_000);
    const left = b.addTurn(s.id, 'Explain closures with a short example', { at: when });
    const right = b.addTurn(s.id, 'Explain closures with a short example', { at: when });
    const g = b.arena.addGroup({
      id: `g-seed-${i + 1}`,
      session_id: s.id,
      blind: true,
      targets: [l, r].map((m) => ({ model: models[m]!.split(' · ')[0]!, provider: models[m]!.split(' · ')[1]! })),
      created_at: when.toISOString(),
      columns: [
        { slot: 0, turn_id: left.id, target: models[l]!, state: 'completed' },
        { slot: 1, turn_id: right.id, target: models[r]!, state: 'completed' },
      ],
    });
    const winner = typeof outcome === 'number' ? (outcome === l ? left.id : right.id) : undefined;
    const v: Vote = {
      id: `v-seed-${i + 1}`,
      group_id: g.id,
      outcome: typeof outcome === 'number' ? 'win' : outcome === 't' ? 'tie' : 'both_bad',
      winner_turn_id: winner,
      note,
      blind: true,
      created_at: new Date(when.getTime() + 120_000).toISOString(),
    };
    b.arena.votes.set(g.id, v);
    b.arena.groups.set(g.id, { ...g, vote: v });
  });
}
