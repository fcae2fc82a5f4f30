// What the window shows besides the conversation: which dialog or panel
// is open, the toast, and the two questions a send may ask (store into a
// damaged database? go over a spent budget?). Each is a field: open a
// dialog by assigning it, close it by assigning its empty value.
import type { ArtifactTarget } from '../artifacts';
import type { KnowledgePlace, Provider } from '../types';

export interface CompareTarget {
  originalId: string;
  copyId: string;
  copySessionId: string;
  kind: 'replay' | 'rerun';
  /**
   * The providers of the two sessions: a turn does not record its
   * provider, its session does ('' when unknown, or for a session made by
   * `agentdeck run --base-url`).
   */
  originalProvider: string;
  copyProvider: string;
}

/** A send the provider's spent budget stopped. */
export interface OverBudget {
  message: string;
  provider: string;
  /** The budget refuses: no sending past it this month, only raising it. */
  refuses: boolean;
}

export type SettingsTab = 'providers' | 'defaults' | 'appearance' | 'prompts' | 'workflows' | 'observability';

export class UIState {
  diagnosticsTurn = $state<string | null>(null);
  /** The artifact the side panel shows (in the diagnostics panel's place); null when closed. */
  artifact = $state.raw<ArtifactTarget | null>(null);
  settingsOpen = $state(false);
  /** The About box (from the version in the sidebar, or from Settings). */
  aboutOpen = $state(false);
  settingsTab = $state<SettingsTab>('providers');
  compare = $state.raw<CompareTarget | null>(null);
  rerunTurn = $state<string | null>(null);
  /** What the dialog for rerunTurn does: a re-run in a new session to compare, or a new version here. */
  rerunMode = $state<'rerun' | 'regenerate'>('rerun');
  exportSession = $state<string | null>(null);
  /** The session whose own settings (instructions, sampling) are being edited. */
  sessionSettings = $state<string | null>(null);
  /** The project whose name and defaults are being edited. */
  projectSettings = $state<string | null>(null);
  /** Where the Documents panel lists documents (a session, or a project), and the name it shows; null when closed. */
  documents = $state.raw<{ place: KnowledgePlace; name: string } | null>(null);
  /** The turn whose message is being edited in place (a new version on send). */
  editTurn = $state<string | null>(null);
  /** A provider to edit when Settings opens (from onboarding's presets). */
  providerDraft = $state.raw<Provider | null>(null);
  toast = $state('');
  /**
   * Why a message was not stored: the database is damaged. Set while the
   * person decides (answerDamaged) whether to store it anyway.
   */
  damagedSend = $state('');
  /**
   * Why a message was not sent: its provider's monthly budget is spent.
   * Set while the person decides (answerOverBudget) whether to go over it;
   * a provider whose budget refuses only says so, with the way to Settings.
   */
  overBudget = $state.raw<OverBudget | null>(null);

  // The person's answers to the two questions.
  #decideDamaged: ((ok: boolean) => void) | null = null;
  #decideBudget: ((ok: boolean) => void) | null = null;

  /** Asks "the database is damaged: store it anyway?"; an earlier question still open is answered no. */
  askDamaged(message: string): Promise<boolean> {
    this.#decideDamaged?.(false);
    this.damagedSend = message;
    return new Promise((resolve) => (this.#decideDamaged = resolve));
  }

  /** Answers the question damagedSend asks. */
  answerDamaged(ok: boolean) {
    const d = this.#decideDamaged;
    this.#decideDamaged = null;
    this.damagedSend = '';
    d?.(ok);
  }

  /**
   * Asks "the budget is spent: send anyway?"; an earlier question still
   * open is answered no. refuses reads whether the budget refuses anyway.
   */
  async askOverBudget(message: string, provider: string, refuses: () => Promise<boolean>): Promise<boolean> {
    this.#decideBudget?.(false);
    this.#decideBudget = null;
    this.overBudget = { message, provider, refuses: await refuses() };
    return new Promise((resolve) => (this.#decideBudget = resolve));
  }

  /** Answers the question overBudget asks. */
  answerOverBudget(ok: boolean) {
    const d = this.#decideBudget;
    this.#decideBudget = null;
    this.overBudget = null;
    d?.(ok);
  }
}
