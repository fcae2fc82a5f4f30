// Whether the sessions sidebar is shown or folded to a rail of icons.
// The person's choice (the sidebar's button, Ctrl+B) is kept in prefs, so
// it outlasts a reload. Besides, a window too narrow for the sidebar, the
// conversation and the diagnostics panel at once folds the sidebar for as
// long as that lasts (auto), without changing the kept choice; opening the
// sidebar then shows it anyway until the narrow spell ends.
import { storagePrefs, type Prefs } from '../prefs';

const PREF = 'sidebarCollapsed';

export class SidebarState {
  #prefs: Prefs;
  /** The person's kept choice. */
  #collapsed = $state(false);
  /** Opened by the person while auto would fold it. */
  #openAnyway = $state(false);
  /** The window is too narrow for the sidebar beside what is open. */
  #auto = $state(false);

  constructor(prefs: Prefs = storagePrefs()) {
    this.#prefs = prefs;
    this.#collapsed = prefs.flag(PREF, false);
  }

  /** Whether the sidebar is folded to its rail now. */
  get collapsed(): boolean {
    return this.#collapsed || (this.#auto && !this.#openAnyway);
  }

  /** Tells whether the window is too narrow for the sidebar beside what is open. */
  setAuto(auto: boolean) {
    this.#auto = auto;
    if (!auto) this.#openAnyway = false;
  }

  /** Folds or shows the sidebar; the choice is kept. */
  set(collapsed: boolean) {
    if (collapsed === this.collapsed) return;
    if (!collapsed && this.#auto) this.#openAnyway = true;
    if (collapsed && !this.#collapsed && this.#auto && this.#openAnyway) {
      // Back to what the narrow window asks; the kept choice stays open.
      this.#openAnyway = false;
      return;
    }
    this.#collapsed = collapsed;
    this.#prefs.setFlag(PREF, collapsed);
  }

  toggle() {
    this.set(!this.collapsed);
  }
}

/** The key of the pinned group and of the sessions in no project, beside the projects' ids. */
export const PINNED_GROUP = 'pinned';
export const NO_PROJECT = '-';

/**
 * Which groups of the session list are open. The person's choice is kept
 * per group (prefs, `sidebar.open.<key>`): a project is folded until opened,
 * the pinned group and "No project" are open until folded. A session opened
 * from the address or a search shows its project (reveal) without changing
 * the kept choice: folding that project again forgets the reveal.
 */
export class GroupFolds {
  #prefs: Prefs;
  /** The choices read or made in this page's life: key → open. */
  #open = $state.raw<Record<string, boolean>>({});
  #revealed = $state('');

  constructor(prefs: Prefs = storagePrefs()) {
    this.#prefs = prefs;
  }

  /** Whether a group is open. */
  isOpen(key: string): boolean {
    if (key === this.#revealed) return true;
    const known = this.#open[key];
    if (known !== undefined) return known;
    return this.#prefs.flag(`sidebar.open.${key}`, key === PINNED_GROUP || key === NO_PROJECT);
  }

  /** Opens or folds a group; the choice is kept. */
  set(key: string, open: boolean) {
    if (!open && key === this.#revealed) this.#revealed = '';
    this.#open = { ...this.#open, [key]: open };
    this.#prefs.setFlag(`sidebar.open.${key}`, open);
  }

  toggle(key: string) {
    this.set(key, !this.isOpen(key));
  }

  /** Shows a group for now (the open session's project); '' for none. */
  reveal(key: string) {
    this.#revealed = key;
  }

  get revealed(): string {
    return this.#revealed;
  }
}
