// Tool calls waiting for the person's answer, by turn. A call is known by
// its turn and its call id together: the id is the model's, and two turns
// (two sessions, two columns side by side) may wait on the same one.
import { messageOf, type Backend } from '../api';
import type { Answer, PendingApproval } from '../types';

export interface ApprovalItem extends PendingApproval {
  answering: boolean;
  error: string;
}

export class ApprovalsStore {
  #backend: Pick<Backend, 'pendingApprovals' | 'answerApproval'>;
  items = $state.raw<ApprovalItem[]>([]);

  constructor(backend: Pick<Backend, 'pendingApprovals' | 'answerApproval'>) {
    this.#backend = backend;
  }

  add(p: PendingApproval) {
    this.items = [...this.items.filter((x) => !same(x, p.turn_id, p.call_id)), { ...p, answering: false, error: '' }];
  }

  async load() {
    try {
      for (const p of (await this.#backend.pendingApprovals()) ?? []) this.add(p);
    } catch {
      // Nothing waiting that we can show.
    }
  }

  async answer(turnId: string, callId: string, answer: Answer) {
    this.items = this.items.map((x) => (same(x, turnId, callId) ? { ...x, answering: true, error: '' } : x));
    try {
      await this.#backend.answerApproval({ turn_id: turnId, call_id: callId, answer });
      this.items = this.items.filter((x) => !same(x, turnId, callId));
    } catch (err) {
      this.items = this.items.map((x) => (same(x, turnId, callId) ? { ...x, answering: false, error: messageOf(err) } : x));
    }
  }

  /** The turn ended: whatever it waited for is moot. */
  clearTurn(turnId: string) {
    if (this.items.some((x) => x.turn_id === turnId)) this.items = this.items.filter((x) => x.turn_id !== turnId);
  }
}

function same(x: PendingApproval, turnId: string, callId: string): boolean {
  return x.turn_id === turnId && x.call_id === callId;
}
