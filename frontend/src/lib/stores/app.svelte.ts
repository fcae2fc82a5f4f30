// The app: the stores wired to one backend, composed. What spans several
// stores lives in its own module: sending (sending.ts), the next message
// (composer.svelte.ts), the dialogs and questions (ui.svelte.ts), the one
// subscription and the start (wiring.ts), the Evaluations page's data
// (evals.svelte.ts). What is left here are the short actions on places:
// open, delete, show a page. Components get the app from the Svelte
// context (see context.ts) and read its classes directly.
import { sessionArtifacts, type ArtifactTarget } from '../artifacts';
import { messageOf, type Backend } from '../api';
import type { Router } from '../route';
import type { GroupTarget, RerunOptions, Status } from '../types';
import { ApprovalsStore } from './approvals.svelte';
import { ComposerState } from './composer.svelte';
import { ConversationStore, type TurnTarget } from './conversation.svelte';
import { DiagnosticsData } from './diagnostics.svelte';
import { EvalsData } from './evals.svelte';
import { RunProgress } from './evalprogress.svelte';
import { ImageCache } from './imagecache';
import { Navigation, type HistoryMode } from './navigation.svelte';
import { Sender, type OutgoingImage } from './sending';
import { SearchStore, SessionsStore } from './sessions.svelte';
import { SettingsStore } from './settings.svelte';
import { SideBySide } from './sidebyside.svelte';
import { TimeTravel } from './timetravel.svelte';
import { ReviewQueue, ReviewStore } from './reviews.svelte';
import { withThumb } from '../reviews';
import { TurnStore, type TurnsOptions } from './turns.svelte';
import { UIState } from './ui.svelte';
import { Wiring } from './wiring';

export type { CompareTarget, OverBudget } from './ui.svelte';
export type { OutgoingImage } from './sending';
export { titleFrom } from './sending';
export { pastedFiles } from './composer.svelte';

export interface AppOptions {
  raf?: TurnsOptions['raf'];
  now?: () => Date;
  /** The location hash to keep the open session and turn in (none in tests). */
  router?: Router | null;
}

export class App {
  readonly backend: Backend;
  readonly sessions: SessionsStore;
  readonly search: SearchStore;
  readonly turns: TurnStore;
  readonly conversation: ConversationStore;
  /** The columns the open session shows side by side. */
  readonly sideBySide: SideBySide;
  readonly settings: SettingsStore;
  readonly approvals: ApprovalsStore;
  /** Which dialog or panel is open, the toast, and the questions a send asks. */
  readonly ui = new UIState();
  /** The next message: its text, attachments, uploads and images. */
  readonly composer: ComposerState;
  /** The images turns show, by id. */
  readonly imageCache: ImageCache;
  /** Evaluation runs as they go (pushed by the backend). */
  readonly evalProgress = new RunProgress();
  /** What the Evaluations page shows. */
  readonly evals: EvalsData;
  readonly nav: Navigation;
  /** The turn the diagnostics panel shows. */
  readonly diagnostics: DiagnosticsData;
  /** "Re-run from here": a turn's steps and the editor (timetravel.svelte.ts). */
  readonly timetravel: TimeTravel;
  /** Human reviews of turns and steps, and the review queue (reviews.svelte.ts). */
  readonly reviews: ReviewStore;
  readonly reviewQueue: ReviewQueue;
  /** The backend's status (providers, the database's health); null until read. */
  status = $state.raw<Status | null>(null);

  readonly #wiring: Wiring;
  readonly #sender: Sender;

  constructor(backend: Backend, opts: AppOptions = {}) {
    // eslint-disable-next-line svelte/prefer-svelte-reactivity -- a clock, not state
    const now = opts.now ?? (() => new Date());
    this.backend = backend;
    this.sessions = new SessionsStore(backend, now);
    this.search = new SearchStore(backend);
    this.turns = new TurnStore(backend, {
      raf: opts.raf,
      onApplied: (view, evs) => this.#wiring.onApplied(view, evs),
      onWarning: (m) => console.warn(m),
    });
    this.diagnostics = new DiagnosticsData(this.turns);
    this.sideBySide = new SideBySide(backend, this.turns);
    this.conversation = new ConversationStore(backend, this.sessions, this.turns, this.sideBySide);
    this.settings = new SettingsStore(backend);
    this.approvals = new ApprovalsStore(backend);
    this.composer = new ComposerState(backend, (m) => this.toast(m));
    this.imageCache = new ImageCache((id) => backend.getImage(id));
    this.nav = new Navigation({
      conversation: this.conversation,
      router: opts.router ?? null,
      showHome: () => this.#showNew(),
      placeChanged: () => this.evals.placeChanged(),
      selectProject: (id) => void this.sessions.setProject(id),
    });
    this.evals = new EvalsData(backend, () => this.nav.evalsAt);
    this.#wiring = new Wiring({
      ...this.#parts(),
      nav: this.nav,
      evalProgress: this.evalProgress,
      evals: this.evals,
      diagnostics: this.diagnostics,
      composerImages: this.composer.images,
      imageCache: this.imageCache,
      now,
    });
    this.timetravel = new TimeTravel({
      backend,
      conversation: this.conversation,
      sessions: this.sessions,
      turns: this.turns,
      now,
      unfocus: () => this.nav.unfocus(),
    });
    const reviewDeps = { backend, toast: (m: string) => this.toast(m), now };
    this.reviews = new ReviewStore(reviewDeps);
    this.reviewQueue = new ReviewQueue(reviewDeps, this.reviews);
    this.#sender = new Sender({
      ...this.#parts(),
      ui: this.ui,
      sideBySide: this.sideBySide,
      imageCache: this.imageCache,
      now,
      adopted: (id) => this.nav.adopted(id),
      unfocus: () => this.nav.unfocus(),
      refreshStatus: () => this.refreshStatus(),
      toast: (m) => this.toast(m),
    });
  }

  #parts() {
    return {
      backend: this.backend,
      turns: this.turns,
      approvals: this.approvals,
      sessions: this.sessions,
      conversation: this.conversation,
      settings: this.settings,
    };
  }

  /** What the main pane shows: the conversation, the Usage page or the Evaluations page. */
  get view() {
    return this.nav.view;
  }

  /** The run the Evaluations page shows, and the run it is compared with. */
  get evalsAt() {
    return this.nav.evalsAt;
  }

  /** The projects the session list groups by (held by the sessions store). */
  get projects() {
    return this.sessions.projects;
  }

  /** Keeps the session list to one project ('' for all), named in the address, beside a new session. */
  openProject(id: string) {
    this.ui.diagnosticsTurn = null;
    this.nav.project(id);
  }

  get uploads() {
    return this.composer.uploads;
  }

  get composerImages() {
    return this.composer.images;
  }

  toast(message: string) {
    this.ui.toast = message;
  }

  /** Puts a suggestion (the empty state's) in the composer. */
  suggest(text: string) {
    this.composer.text = text;
  }

  /** Adds attachment paths, without duplicates. */
  attach(paths: string[]) {
    this.composer.attach(paths);
  }

  addFiles(files: Iterable<File>) {
    this.composer.addFiles(files);
  }

  paste(e: ClipboardEvent) {
    this.composer.paste(e);
  }

  drop(dt: DataTransfer, runtimeDrop: boolean) {
    this.composer.drop(dt, runtimeDrop);
  }

  /** Subscribes first, then loads what the shell shows. */
  /** Subscribes and loads the first screen; resolves once the session list is read (wiring.ts). */
  start(): Promise<void> {
    return this.#wiring.start();
  }

  stop() {
    this.#wiring.stop();
  }

  async refreshStatus() {
    try {
      this.status = await this.backend.status();
    } catch {
      // The shell reports the first failure; later ones keep the last status.
    }
  }

  /** Opens or closes the diagnostics panel for the open session's newest turn. */
  toggleLatestDiagnostics() {
    // A blind column's diagnostics name its model: not before the vote.
    if (this.sideBySide.blind) return;
    const ids = this.conversation.ids;
    const last = ids[ids.length - 1];
    if (!last) return;
    this.ui.diagnosticsTurn = this.ui.diagnosticsTurn === last ? null : last;
    if (this.ui.diagnosticsTurn) this.ui.artifact = null;
  }

  /** Opens the open session's newest artifact (Ctrl+Shift+A), or closes the panel. */
  toggleLatestArtifact() {
    if (this.ui.artifact) {
      this.ui.artifact = null;
      return;
    }
    const all = sessionArtifacts(this.conversation.ids.map((id) => this.turns.shown(id)));
    const last = all[all.length - 1];
    if (last) this.openArtifact({ key: last.key, turnId: last.turnId, content: last.content });
  }

  /** Opens the artifact panel at a version (it takes the diagnostics panel's place). */
  openArtifact(target: ArtifactTarget) {
    this.ui.diagnosticsTurn = null;
    this.ui.artifact = target;
  }

  /** A new, unsaved session with the defaults; created on its first message. */
  newSession(mode: HistoryMode = 'push') {
    this.#showNew();
    this.nav.home(mode);
  }

  /** Opens a session at its latest turn, or scrolled to a turn and marking it. */
  async openSession(id: string, target: TurnTarget | null = null) {
    this.ui.diagnosticsTurn = null;
    await this.nav.open(id, target);
  }

  /** Deletes a session; the window forgets its turns, and shows a new session if it was open. */
  async deleteSession(id: string) {
    await this.sessions.remove(id);
    this.turns.forgetSession(id);
    if (this.ui.diagnosticsTurn && this.turns.peek(this.ui.diagnosticsTurn) === undefined) this.ui.diagnosticsTurn = null;
    // Replaced, not pushed: Back should not lead to the deleted session.
    if (this.conversation.sessionId === id) this.newSession('replace');
  }

  /** Unmarks the turn a search or a link opened. */
  unfocus() {
    this.nav.unfocus();
  }

  /** Sends a message in the open session (sending.ts). */
  send(message: string, attach: string[] = [], images: OutgoingImage[] = [], force = false): Promise<string | null> {
    return this.#sender.send(message, attach, images, force);
  }

  /**
   * Sends a message side by side (sending.ts): to targets, or, with
   * follows, to each column's branch of that group. Answers the group's
   * id, or null when nothing was sent.
   */
  async sendSideBySide(
    message: string,
    g: { targets?: GroupTarget[]; blind?: boolean; follows?: string },
    attach: string[] = [],
    images: OutgoingImage[] = [],
  ): Promise<string | null> {
    return (await this.#sender.sendGroup(message, g, attach, images))?.group_id ?? null;
  }

  /** "Continue with this one": that column's branch becomes the conversation, the others stay versions. */
  async continueWith(turnId: string) {
    try {
      const ref = await this.backend.continueWith(turnId);
      this.ui.diagnosticsTurn = null;
      await this.conversation.open(ref.session_id, { turnId: ref.turn_id, quiet: true });
    } catch (err) {
      this.toast(messageOf(err));
    }
  }

  /** Shows a group side by side again (from a turn's version switcher). */
  async openGroup(groupId: string) {
    const sessionId = this.conversation.sessionId;
    try {
      await this.backend.openGroup(groupId);
      this.ui.diagnosticsTurn = null;
      if (sessionId) await this.conversation.open(sessionId);
    } catch (err) {
      this.toast(messageOf(err));
    }
  }

  /** Stops every running column of the open group. */
  async stopGroup() {
    const g = this.sideBySide.last;
    if (!g) return;
    try {
      await this.backend.stopGroup(g.id);
    } catch (err) {
      this.toast(messageOf(err));
    }
  }

  /** Stops what runs in the open session: every column of its group, or its one running turn (Esc, the composer's Stop). */
  async stopRunning() {
    if (this.sideBySide.running) return this.stopGroup();
    const running = this.runningTurn();
    if (running) await this.stopTurn(running);
  }

  /** Runs a new version of a turn (sending.ts). */
  sendVersion(turnId: string, message: string, opts: { model?: string; workflow?: string } = {}): Promise<string | null> {
    return this.#sender.sendVersion(turnId, message, opts);
  }

  /** Regenerates a turn with the model and workflow picked (sending.ts). */
  regenerate(turnId: string, opts: RerunOptions): Promise<string | null> {
    return this.#sender.regenerate(turnId, opts);
  }

  /** Continues the answer of a stopped turn (or one ended at a limit) in a turn that follows it. */
  continueTurn(turnId: string): Promise<string | null> {
    return this.#sender.continueTurn(turnId);
  }

  replay(turnId: string) {
    return this.#sender.replay(turnId);
  }

  rerun(turnId: string, opts: RerunOptions) {
    return this.#sender.rerun(turnId, opts);
  }

  /** Starts a new session from the branch up to a turn, and opens it. */
  async fork(turnId: string) {
    try {
      const s = await this.backend.forkSession(turnId);
      this.sessions.upsert(s);
      await this.openSession(s.id);
    } catch (err) {
      this.toast(messageOf(err));
    }
  }

  /** Deletes a turn with every turn after it (the person confirmed), and shows the branch that stays. */
  async deleteTurn(turnId: string) {
    try {
      const n = await this.backend.deleteTurn(turnId);
      const sid = this.conversation.sessionId;
      this.ui.diagnosticsTurn = null;
      if (sid) await this.conversation.open(sid);
      void this.sessions.refresh();
      this.toast(n === 1 ? 'Deleted 1 turn.' : `Deleted ${n} turns.`);
    } catch (err) {
      this.toast(messageOf(err));
    }
  }

  /** Answers the question ui.overBudget asks: send past the spent budget? */
  answerOverBudget(ok: boolean) {
    this.ui.answerOverBudget(ok);
  }

  /** Answers the question ui.damagedSend asks: store the message anyway? */
  answerDamaged(ok: boolean) {
    this.ui.answerDamaged(ok);
  }

  /** Opens Settings at the providers, editing the one named if it is saved. */
  openProviderSettings(name = '') {
    this.ui.settingsOpen = true;
    this.ui.settingsTab = 'providers';
    this.ui.providerDraft = this.settings.providers.find((x) => x.name === name) ?? null;
  }

  /** Shows the Usage page: tokens and cost over time. */
  openUsage() {
    this.ui.diagnosticsTurn = null;
    this.nav.usage();
  }

  /** Shows the Arena page: the leaderboard of side-by-side votes. */
  openArena() {
    this.ui.diagnosticsTurn = null;
    this.nav.arena();
  }

  /**
   * Toggles a thumb on a turn (Alt+↑, Alt+↓): the one named, or the newest
   * ended turn of the conversation. False when there is none to rate.
   */
  rateTurn(thumb: 1 | -1, turnId?: string): boolean {
    const ids = this.conversation.ids;
    const id = turnId && ids.includes(turnId) ? turnId : [...ids].reverse().find((t) => this.turns.summary(t)?.state !== 'running');
    const t = id ? this.turns.summary(id) : undefined;
    if (!id || !t || t.state === 'running') return false;
    const r = withThumb(this.reviews.get(id), thumb);
    void this.reviews.save(r);
    this.toast(r.thumb ? `Turn ${t.seq} rated ${r.thumb === 1 ? 'up' : 'down'}.` : `Turn ${t.seq}: rating taken off.`);
    return true;
  }

  /** Shows the review queue: the turns of a review filter, one by one. */
  openReviewQueue() {
    this.ui.diagnosticsTurn = null;
    this.nav.review();
  }

  /** Shows the "What changed" view: turnB (usually a re-run) compared with turnA step by step. */
  openDiff(turnA: string, turnB: string) {
    this.ui.diagnosticsTurn = null;
    this.nav.diff(turnA, turnB);
  }

  /**
   * Shows the Evaluations page at a run ('' for the newest), compared
   * with otherId when that is set; replace renames the place (a run
   * picked where the newest was shown) rather than adding one to Back.
   */
  openEvals(runId = '', otherId = '', opts: { replace?: boolean } = {}) {
    this.ui.diagnosticsTurn = null;
    this.nav.evals(runId, otherId, opts.replace ? 'replace' : 'push');
  }

  async stopTurn(turnId: string) {
    try {
      await this.backend.stopTurn(turnId);
    } catch (err) {
      this.toast(messageOf(err));
    }
  }

  /** The running turn of the open session (a running column's, side by side), if any. */
  runningTurn(): string | null {
    const column = this.sideBySide.columns.find((c) => c.state === 'running');
    if (column) return column.last;
    const ids = this.conversation.ids;
    for (let i = ids.length - 1; i >= 0; i--) {
      if (this.turns.status(ids[i]!) === 'running') return ids[i]!;
    }
    return null;
  }

  #showNew() {
    const s = this.settings.settings;
    this.conversation.newDraft({
      provider: s.default_provider,
      model: this.settings.modelFor(s.default_provider, s.default_model),
      workflow: s.default_workflow || 'chat',
      workspace: '',
      // A new session shown while the list keeps to a project starts in it.
      ...(this.sessions.project && this.sessions.project !== '-' ? { project_id: this.sessions.project } : {}),
    });
    this.ui.diagnosticsTurn = null;
  }
}

export function createApp(backend: Backend, opts: AppOptions = {}): App {
  return new App(backend, opts);
}
