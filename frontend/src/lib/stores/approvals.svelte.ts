// Tool calls waiting for the person's answer, by turn.
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
    this.items = [...this.items.filter((x) => x.call_id !== p.call_id), { ...p, answering: false, error: '' }];
  }

  async load() {
    try {
      for (const p of (await this.#backend.pendingApprovals()) ?? []) this.add(p);
    } catch {
      // Nothing waiting that we can show.
    }
  }

  async answer(callId: string, answer: Answer) {
    this.items = this.items.map((x) => (x.call_id === callId ? { ...x, answering: true, error: '' } : x));
    try {
      await this.#backend.answerApproval({ call_id: callId, answer });
      this.items = this.items.filter((x) => x.call_id !== callId);
    } catch (err) {
      this.items = this.items.map((x) => (x.call_id === callId ? { ...x, answering: false, error: messageOf(err) } : x));
    }
  }

  /** The turn ended: whatever it waited for is moot. */
  clearTurn(turnId: string) {
    if (this.items.some((x) => x.turn_id === turnId)) this.items = this.items.filter((x) => x.turn_id !== turnId);
  }
}
