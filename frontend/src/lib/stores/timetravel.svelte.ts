// Time travel in the window: "Re-run from here" on a stored turn's steps.
//
// A stored turn's steps (its start, stage boundaries, model calls and tool
// results) come from the backend (turnSteps, backend/timeline: ids
// "start", "stageN", "callN", "toolN"), read once per turn and kept. The
// blocks of the turn's timeline name their step here (stepsOfBlocks): a
// stage card by its stage_start event, a model call by the last text or
// reasoning it streamed (the reducer tags them with the call's
// think_start), a tool card by its call id, in order. A step with no
// block (a call that only asked for tools) is still offered in the
// editor's step picker. A running turn offers none.
//
// Run calls rerunFrom and shows the new turn as a version of the original,
// as a regeneration does; a refusal is thrown to the editor, which shows
// it and keeps the edit.
import type { Backend } from '../api';
import type { RerunFromRequest, TimelineStep, Turn } from '../types';
import type { ConversationStore } from './conversation.svelte';
import type { SessionsStore } from './sessions.svelte';
import type { TurnStore } from './turns.svelte';

/** What the time-travel store reads and changes. */
export interface TimeTravelDeps {
  backend: Pick<Backend, 'turnSteps' | 'rerunFrom' | 'getTurn'>;
  conversation: ConversationStore;
  sessions: SessionsStore;
  turns: TurnStore;
  now: () => Date;
  /** The place to come back to is now the newest turn. */
  unfocus: () => void;
}

/** The editor open for a turn, at a step. */
export interface RerunTarget {
  turnId: string;
  stepId: string;
}

export { editName, phraseOfId, stageStep, stepLabel, stepPhrase, stepsOfBlocks } from '../steps';

export class TimeTravel {
  /** Each turn's steps, once read (an empty list when they could not be read). */
  steps = $state.raw<Record<string, TimelineStep[]>>({});
  /** The open editor, or null. */
  dialog = $state.raw<RerunTarget | null>(null);
  /** The numbers (seq) of turns re-run from, read when not listed. */
  seqs = $state.raw<Record<string, number>>({});
  /** A turn just started by Run: it takes the focus when it shows. */
  focusTurn = $state.raw<string | null>(null);

  #d: TimeTravelDeps;
  // eslint-disable-next-line svelte/prefer-svelte-reactivity -- what was asked, not state
  #asked = new Set<string>();

  constructor(deps: TimeTravelDeps) {
    this.#d = deps;
  }

  /** Reads a finished turn's steps once; a failure leaves it with none (nothing offered). */
  async load(turnId: string): Promise<void> {
    if (this.#asked.has(turnId)) return;
    this.#asked.add(turnId);
    let steps: TimelineStep[] = [];
    try {
      steps = (await this.#d.backend.turnSteps(turnId)) ?? [];
      // A turn of one stage ("chat") names none: "(chat)" on every step says nothing.
      if (steps.filter((s) => s.kind === 'stage').length <= 1) steps = steps.map((s) => ({ ...s, stage: undefined }));
    } catch {
      this.#asked.delete(turnId); // asked again when shown again
    }
    this.steps = { ...this.steps, [turnId]: steps };
  }

  /** The number (#N) of a turn, from its row or, once read, from the backend; 0 while unknown. */
  seqOf(turnId: string): number {
    return this.#d.turns.summary(turnId)?.seq ?? this.seqs[turnId] ?? 0;
  }

  /** Reads the number of a turn not listed here (a version not shown) once. */
  async loadSeq(turnId: string): Promise<void> {
    if (!turnId || this.#d.turns.summary(turnId) || this.#asked.has(`seq:${turnId}`)) return;
    this.#asked.add(`seq:${turnId}`);
    try {
      const d = await this.#d.backend.getTurn(turnId, false);
      this.seqs = { ...this.seqs, [turnId]: d.seq };
    } catch {
      // deleted: the divider says "the original turn"
    }
  }

  /** Whether a turn should take the focus as it shows (once). */
  takeFocus(turnId: string): boolean {
    if (this.focusTurn !== turnId) return false;
    this.focusTurn = null;
    return true;
  }

  open(turnId: string, stepId: string) {
    this.dialog = { turnId, stepId };
  }

  close() {
    this.dialog = null;
  }

  /**
   * Re-runs a turn from a step with one edit: the new turn is a version of
   * the original, shown in its place, streaming. Throws what the backend
   * refused (the editor shows it and keeps the edit).
   */
  async run(req: RerunFromRequest): Promise<string> {
    const { backend, conversation, sessions, turns } = this.#d;
    const ref = await backend.rerunFrom(req);
    const orig = turns.peek(req.turn_id);
    const row = turns.summary(req.turn_id);
    const message = req.edit.kind === 'message' ? (req.edit.text ?? '') : (orig?.userMessage ?? row?.user_message ?? '');
    const model = (req.edit.kind === 'settings' && req.edit.settings?.model) || orig?.model || row?.model || '';
    const workflow = orig?.workflow || row?.workflow || '';
    const startedAt = this.#d.now().toISOString();
    turns.describe(ref.turn_id, {
      sessionId: ref.session_id,
      userMessage: message,
      userImages: orig?.userImages ?? [],
      model,
      workflow,
      startedAt: turns.peek(ref.turn_id)?.startedAt || startedAt,
      loaded: true,
    });
    const started: Turn = {
      id: ref.turn_id,
      session_id: ref.session_id,
      seq: ref.seq,
      user_message: message,
      state: 'running',
      workflow,
      model,
      started_at: startedAt,
      completed_at: null,
      final_text: '',
      outcome: '',
      termination: { kind: '' },
      parent_turn_id: row?.parent_turn_id ?? orig?.parentId ?? '',
      continues: false,
      from_turn_id: req.turn_id,
      from_step: req.step,
      from_edit: req.edit.kind ?? '',
    };
    this.focusTurn = ref.turn_id;
    conversation.addTurn(started, req.turn_id);
    sessions.touch(ref.session_id, startedAt);
    sessions.noteTurn(ref.session_id, ref.turn_id, 'running');
    if (conversation.focus) this.#d.unfocus();
    this.dialog = null;
    return ref.turn_id;
  }
}
