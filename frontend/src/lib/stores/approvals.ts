// Tool calls waiting for the person's answer, by turn.
import { writable } from 'svelte/store';
import { messageOf, type Backend } from '../api';
import type { Answer, PendingApproval } from '../types';

export interface ApprovalItem extends PendingApproval {
  answering: boolean;
  error: string;
}

export function createApprovals(backend: Pick<Backend, 'pendingApprovals' | 'answerApproval'>) {
  const state = writable<ApprovalItem[]>([]);

  function add(p: PendingApproval) {
    state.update((list) => [...list.filter((x) => x.call_id !== p.call_id), { ...p, answering: false, error: '' }]);
  }

  return {
    subscribe: state.subscribe,
    add,

    async load() {
      try {
        for (const p of (await backend.pendingApprovals()) ?? []) add(p);
      } catch {
        // Nothing waiting that we can show.
      }
    },

    async answer(callId: string, answer: Answer) {
      state.update((list) => list.map((x) => (x.call_id === callId ? { ...x, answering: true, error: '' } : x)));
      try {
        await backend.answerApproval({ call_id: callId, answer });
        state.update((list) => list.filter((x) => x.call_id !== callId));
      } catch (err) {
        state.update((list) => list.map((x) => (x.call_id === callId ? { ...x, answering: false, error: messageOf(err) } : x)));
      }
    },

    /** The turn ended: whatever it waited for is moot. */
    clearTurn(turnId: string) {
      state.update((list) => (list.some((x) => x.turn_id === turnId) ? list.filter((x) => x.turn_id !== turnId) : list));
    },
  };
}

export type ApprovalsStore = ReturnType<typeof createApprovals>;
