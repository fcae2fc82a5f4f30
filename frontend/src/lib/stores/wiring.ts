// The app's one subscription to the backend, and what it starts with:
// turn events go to the turn store, approvals to theirs, a resync reads
// the turns again, turns that changed with no event (a dead process's)
// are read again where they show, and evaluation progress goes to its
// board and to the Evaluations page. start subscribes first, then loads
// what the shell shows; stop lets go of it all.
import type { Backend } from '../api';
import type { AgentEvent, EvalProgress, TurnChange } from '../types';
import type { ApprovalsStore } from './approvals.svelte';
import type { ComposerImages } from './composerimages.svelte';
import type { ConversationStore } from './conversation.svelte';
import type { DiagnosticsData } from './diagnostics.svelte';
import type { EvalsData } from './evals.svelte';
import type { RunProgress } from './evalprogress.svelte';
import type { ImageCache } from './imagecache';
import type { Navigation } from './navigation.svelte';
import type { SessionsStore } from './sessions.svelte';
import type { SettingsStore } from './settings.svelte';
import type { TurnStore } from './turns.svelte';
import type { TurnView } from './turnview';

export interface WiringDeps {
  backend: Backend;
  turns: TurnStore;
  approvals: ApprovalsStore;
  sessions: SessionsStore;
  conversation: ConversationStore;
  settings: SettingsStore;
  nav: Navigation;
  evalProgress: RunProgress;
  evals: EvalsData;
  diagnostics: DiagnosticsData;
  composerImages: ComposerImages;
  imageCache: ImageCache;
  now: () => Date;
}

export class Wiring {
  #d: WiringDeps;
  #unsubscribe: (() => void) | null = null;

  constructor(deps: WiringDeps) {
    this.#d = deps;
  }

  /**
   * Subscribes first, then loads what the shell shows, the session list
   * first. Resolves once the list's first read has ended (shown, or its
   * error shown).
   */
  start(): Promise<void> {
    const { backend, turns, approvals, sessions, nav, settings, conversation } = this.#d;
    this.#unsubscribe ??= backend.subscribe({
      onEvents: (batch) => turns.ingest(batch),
      onApproval: (p) => approvals.add(p),
      onResync: () => turns.resync(),
      onTurnsChanged: (changes) => void this.#onTurnsChanged(changes),
      onEvalProgress: (p) => this.#onEvalProgress(p),
      onTraces: (s) => (settings.traces = s),
    });
    const listed = sessions.refresh();
    void approvals.load();
    nav.start();
    void settings.load().then(() => {
      // Fill the draft's empty fields with the defaults, unless a session was opened meanwhile.
      if (conversation.session) return;
      const d = conversation.draft;
      const st = settings.settings;
      conversation.setDraft({
        provider: d.provider || st.default_provider,
        model: d.model || settings.modelFor(d.provider || st.default_provider, st.default_model),
        workflow: d.workflow || st.default_workflow || 'chat',
      });
    });
    return listed;
  }

  stop() {
    this.#unsubscribe?.();
    this.#unsubscribe = null;
    this.#d.nav.stop();
    this.#d.composerImages.clear();
    this.#d.imageCache.clear();
  }

  /** What the rest of the app does when a turn's events land. */
  onApplied(view: TurnView, evs: readonly AgentEvent[]) {
    const { sessions, approvals } = this.#d;
    sessions.noteTurn(view.sessionId || evs[0]?.session_id || '', view.id, view.state);
    this.#d.diagnostics.turnChanged(view.id);
    if (!evs.some((e) => e.type === 'turn_completed' || e.type === 'error' || e.type === 'cancelled' || e.type === 'final_answer')) return;
    if (view.state !== 'running') {
      approvals.clearTurn(view.id);
      if (view.sessionId) sessions.touch(view.sessionId, view.completedAt ?? this.#d.now().toISOString());
    }
  }

  // Turns whose process died were marked interrupted by the backend, with
  // no event: reload what shows them (the list, the open session, the
  // turns' views).
  async #onTurnsChanged(changes: readonly TurnChange[]) {
    const { sessions, conversation, approvals, turns } = this.#d;
    const open = conversation.session?.id;
    const work: Promise<unknown>[] = [sessions.refresh()];
    if (open && changes.some((c) => c.session_id === open)) work.push(conversation.reloadTurns());
    for (const c of changes) {
      sessions.noteTurn(c.session_id, c.turn_id, c.state);
      approvals.clearTurn(c.turn_id);
      work.push(turns.reload(c.turn_id));
    }
    await Promise.all(work);
    for (const c of changes) this.#d.diagnostics.turnChanged(c.turn_id);
  }

  // A run's progress: kept, and news to the Evaluations page when it is.
  #onEvalProgress(p: EvalProgress) {
    if (this.#d.evalProgress.note(p)) this.#d.evals.progressed(p.run_id);
  }
}
