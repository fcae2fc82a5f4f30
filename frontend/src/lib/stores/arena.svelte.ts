// What the Arena page shows: the leaderboard of side-by-side votes and the
// recent votes, of all projects, one project or the sessions in none,
// read from the backend when the page opens and when the person picks
// another project. The board and the list are read together but fail
// apart: a list without its board still shows. Answers to an older
// request are dropped.
import { messageOf, type Backend } from '../api';
import type { ArenaBoard, VoteRecord } from '../types';

/** How many recent votes the page lists. */
export const RecentVotes = 50;

export class ArenaData {
  #backend: Pick<Backend, 'arenaBoard' | 'listVotes'>;
  #asked = 0;
  #project = $state('');
  board = $state.raw<ArenaBoard | null>(null);
  votes = $state.raw<VoteRecord[] | null>(null);
  boardError = $state('');
  votesError = $state('');
  loading = $state(false);

  constructor(backend: Pick<Backend, 'arenaBoard' | 'listVotes'>) {
    this.#backend = backend;
  }

  /** The project whose votes count: '' for all, '-' for the sessions in none. */
  get project() {
    return this.#project;
  }
  set project(v: string) {
    this.#project = v;
    void this.load();
  }

  async load() {
    const ask = ++this.#asked;
    const project = this.#project || undefined;
    this.loading = true;
    const [board, votes] = await Promise.allSettled([
      this.#backend.arenaBoard({ project }),
      this.#backend.listVotes({ project, limit: RecentVotes }),
    ]);
    if (ask !== this.#asked) return;
    this.board = board.status === 'fulfilled' ? board.value : null;
    this.boardError = board.status === 'rejected' ? messageOf(board.reason) : '';
    this.votes = votes.status === 'fulfilled' ? (votes.value ?? []) : null;
    this.votesError = votes.status === 'rejected' ? messageOf(votes.reason) : '';
    this.loading = false;
  }
}
