// Wires the stores to one backend and one subscription, and holds the
// actions that span several stores (send, stop, replay...). Components get
// it from the Svelte context (see context.ts).
import { get, writable } from 'svelte/store';
import { isDamaged, isOverBudget, messageOf, type Backend } from '../api';
import { filesFromDrop } from '../dom';
import { imageTypeOfName, splitImages } from '../images';
import type { Router } from '../route';
import type { AgentEvent, ImageData, Provider, RerunOptions, Status, Turn, TurnChange } from '../types';
import { createApprovals } from './approvals';
import { ComposerImages } from './composerimages.svelte';
import { createConversation, type TurnTarget } from './conversation';
import { ImageCache } from './imagecache';
import { createNavigation, type HistoryMode } from './navigation';
import { userImagesOf } from './reducer';
import { createSearch, createSessions } from './sessions';
import { createSettings } from './settings';
import { TurnStore, type TurnsOptions } from './turns.svelte';
import { Uploads } from './uploads.svelte';
import { noteEvalProgress } from './evalprogress';
import type { TurnView, UserImage } from './turnview';

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

export interface UIState {
  diagnosticsTurn: string | null;
  settingsOpen: boolean;
  /** The About box (from the version in the sidebar, or from Settings). */
  aboutOpen: boolean;
  settingsTab: 'providers' | 'defaults' | 'appearance' | 'workflows';
  compare: CompareTarget | null;
  rerunTurn: string | null;
  /** What the dialog for rerunTurn does: a re-run in a new session to compare, or a new version here. */
  rerunMode: 'rerun' | 'regenerate';
  exportSession: string | null;
  /** The turn whose message is being edited in place (a new version on send). */
  editTurn: string | null;
  /** A provider to edit when Settings opens (from onboarding's presets). */
  providerDraft: Provider | null;
  toast: string;
  /**
   * Why a message was not stored: the database is damaged. Set while the
   * person decides (answerDamaged) whether to store it anyway.
   */
  damagedSend: string;
  /**
   * Why a message was not sent: its provider's monthly budget is spent.
   * Set while the person decides (answerOverBudget) whether to go over it;
   * a provider whose budget refuses only says so, with the way to Settings.
   */
  overBudget: OverBudget | null;
}

/** A send the provider's spent budget stopped. */
export interface OverBudget {
  message: string;
  provider: string;
  /** The budget refuses: no sending past it this month, only raising it. */
  refuses: boolean;
}

/** An image to send with a message: its bytes, and the thumbnail the page has of it, if any. */
export interface OutgoingImage {
  /** The stored image's id, when it is sent again (a new version of its turn). */
  id?: string;
  name: string;
  mime: string;
  width: number;
  height: number;
  /** Bytes. */
  size: number;
  /** base64 */
  data: string;
  /** An object URL the turn may show it by; the app owns it once the message is sent. */
  url?: string;
}

export interface AppOptions {
  raf?: TurnsOptions['raf'];
  now?: () => Date;
  /** The location hash to keep the open session and turn in (none in tests). */
  router?: Router | null;
}

export function createApp(backend: Backend, opts: AppOptions = {}) {
  const now = opts.now ?? (() => new Date());
  const status = writable<Status | null>(null);
  const sessions = createSessions(backend, now);
  const search = createSearch(backend);
  const turns = new TurnStore(backend, {
    raf: opts.raf,
    onApplied: (view, evs) => onApplied(view, evs),
    onWarning: (m) => console.warn(m),
  });
  const conversation = createConversation(backend, sessions, turns);
  const settings = createSettings(backend);
  const approvals = createApprovals(backend);
  /** Files (paths on the backend's machine) to attach to the next message. */
  const attachments = writable<string[]>([]);
  /** The message being written in the composer, not sent yet. */
  const composerText = writable('');
  /** Files the page sends to be attached: picked, dropped or pasted (uploads.svelte.ts). */
  const uploads = new Uploads((name, content) => backend.uploadAttachment(name, content), (path) => app.attach([path]));
  /** Images to send with the next message: pasted, dropped or picked. */
  const composerImages = new ComposerImages();
  /** The images turns show, by id. */
  const imageCache = new ImageCache((id) => backend.getImage(id));
  const ui = writable<UIState>({ diagnosticsTurn: null, settingsOpen: false, aboutOpen: false, settingsTab: 'providers', compare: null, rerunTurn: null, rerunMode: 'rerun', editTurn: null, exportSession: null, providerDraft: null, toast: '', damagedSend: '', overBudget: null });

  const nav = createNavigation({ conversation, router: opts.router ?? null, showHome: () => showNew() });

  // What the rest of the app does when a turn's events land.
  function onApplied(view: TurnView, evs: readonly AgentEvent[]) {
    sessions.noteTurn(view.sessionId || evs[0]?.session_id || '', view.id, view.state);
    if (!evs.some((e) => e.type === 'turn_completed' || e.type === 'error' || e.type === 'cancelled' || e.type === 'final_answer')) return;
    if (view.state !== 'running') {
      approvals.clearTurn(view.id);
      if (view.sessionId) sessions.touch(view.sessionId, view.completedAt ?? now().toISOString());
    }
  }

  // Turns whose process died were marked interrupted by the backend, with
  // no event: reload what shows them (the list, the open session, the
  // turns' views).
  async function onTurnsChanged(changes: readonly TurnChange[]) {
    const open = get(conversation).session?.id;
    const work: Promise<unknown>[] = [sessions.refresh()];
    if (open && changes.some((c) => c.session_id === open)) work.push(conversation.reloadTurns());
    for (const c of changes) {
      sessions.noteTurn(c.session_id, c.turn_id, c.state);
      approvals.clearTurn(c.turn_id);
      work.push(turns.reload(c.turn_id));
    }
    await Promise.all(work);
  }

  let unsubscribe: (() => void) | null = null;

  function toast(message: string) {
    ui.update((u) => ({ ...u, toast: message }));
  }

  // The person's answer to "the database is damaged: store it anyway?".
  let decide: ((ok: boolean) => void) | null = null;
  function askForce(message: string): Promise<boolean> {
    decide?.(false);
    ui.update((u) => ({ ...u, damagedSend: message }));
    return new Promise((resolve) => (decide = resolve));
  }

  // The person's answer to "the budget is spent: send anyway?".
  let decideBudget: ((ok: boolean) => void) | null = null;
  async function askOverBudget(message: string, provider: string): Promise<boolean> {
    decideBudget?.(false);
    let refuses = false;
    try {
      refuses = (await backend.budgetState(provider)).budget.over_limit === 'refuse';
    } catch {
      // Ask: the backend refuses a provider that refuses anyway.
    }
    ui.update((u) => ({ ...u, overBudget: { message, provider, refuses } }));
    return new Promise((resolve) => (decideBudget = resolve));
  }

  /** What post sends: a message, a new version of a turn, or a continuation. */
  interface Post {
    message: string;
    attach?: string[];
    images?: OutgoingImage[];
    versionOf?: string;
    continueOf?: string;
    model?: string;
    workflow?: string;
  }

  // Starts a turn in the open session (creating a draft first) and shows it.
  async function post(p: Post, force = false, overBudget = false): Promise<string | null> {
    let { session } = get(conversation);
    try {
      if (!session) {
        const d = get(conversation).draft;
        session = await sessions.create({ ...d, title: titleFrom(p.message || p.images?.[0]?.name || '') });
        conversation.adopt(session);
        nav.adopted(session.id);
      }
      const model = p.model || settings.modelFor(session.provider || get(settings.settings).default_provider, session.model);
      const workflow = p.workflow || session.workflow;
      const attach = p.attach ?? [];
      const images = p.images ?? [];
      const ref = await backend.sendMessage({
        session_id: session.id,
        message: p.message,
        workflow: workflow || undefined,
        model: model || undefined,
        attach: attach.length ? attach : undefined,
        force: force || undefined,
        over_budget: overBudget || undefined,
        version_of: p.versionOf || undefined,
        continue: p.continueOf || undefined,
        images: images.length ? images.map(({ name, mime, width, height, data }): ImageData => ({ name, mime, width, height, data })) : undefined,
      });
      const startedAt = now().toISOString();
      const parent = p.continueOf || (p.versionOf ? (turns.summary(p.versionOf)?.parent_turn_id ?? '') : lastShown());
      turns.describe(ref.turn_id, { sessionId: session.id, userMessage: p.message, userImages: showSent(ref.turn_id, images), model, workflow, continues: !!p.continueOf, startedAt: turns.peek(ref.turn_id)?.startedAt || startedAt, loaded: true });
      conversation.addTurn({ ...runningTurn(ref.turn_id, session.id, p.message, model, workflow, startedAt, ref.seq || nextSeq()), parent_turn_id: parent, continues: !!p.continueOf }, p.versionOf);
      sessions.touch(session.id, startedAt);
      sessions.noteTurn(session.id, ref.turn_id, 'running');
      // The place to come back to is now the newest turn.
      if (get(conversation).focus) nav.unfocus();
      if (!session.provider) void adoptProvider(session.id);
      return ref.turn_id;
    } catch (err) {
      if (isDamaged(err) && !force) {
        void app.refreshStatus();
        return (await askForce(messageOf(err))) ? post(p, true, overBudget) : null;
      }
      if (isOverBudget(err) && !overBudget && session) {
        const provider = session.provider || get(settings.settings).default_provider;
        return (await askOverBudget(messageOf(err), provider)) ? post(p, force, true) : null;
      }
      toast(messageOf(err));
      return null;
    }
  }

  // Reads images by their paths (a drop on the window) and adds them to
  // the next message; one that cannot be read says why.
  async function imagesFromPaths(paths: string[]) {
    await imagesFromBackend(paths.map((p) => () => backend.imageFile(p)));
  }

  // Adds the images the backend reads (from files, from the clipboard) to
  // the next message; one that cannot be read says why.
  async function imagesFromBackend(reads: (() => Promise<ImageData>)[]) {
    const files: File[] = [];
    for (const read of reads) {
      try {
        const im = await read();
        const bytes = Uint8Array.from(atob(im.data), (c) => c.charCodeAt(0));
        files.push(new File([bytes], im.name, { type: im.mime }));
      } catch (err) {
        toast(messageOf(err));
      }
    }
    if (files.length) await composerImages.add(files);
  }

  /** The last turn the open session shows: what a new message follows. */
  function lastShown(): string {
    const ids = get(conversation).ids;
    return ids[ids.length - 1] ?? '';
  }

  const app = {
    backend,
    status,
    sessions,
    search,
    conversation,
    settings,
    approvals,
    turns,
    ui,
    attachments,
    uploads,
    composerImages,
    imageCache,
    composerText,
    toast,
    /** What the main pane shows: the conversation, the Usage page or the Evaluations page. */
    view: nav.view,
    /** The run the Evaluations page shows, and the run it is compared with. */
    evalsAt: nav.evalsAt,

    /** Puts a suggestion (the empty state's) in the composer. */
    suggest(text: string) {
      composerText.set(text);
    },

    /** Adds attachment paths, without duplicates. */
    attach(paths: string[]) {
      if (paths.length === 0) return;
      attachments.update((list) => [...list, ...paths.filter((p) => p && !list.includes(p))]);
    },

    /** Subscribes first, then loads what the shell shows. */
    start() {
      unsubscribe ??= backend.subscribe({
        onEvents: (batch) => turns.ingest(batch),
        onApproval: (p) => approvals.add(p),
        onResync: () => turns.resync(),
        onTurnsChanged: (changes) => void onTurnsChanged(changes),
        onEvalProgress: (p) => noteEvalProgress(p),
      });
      void approvals.load();
      void sessions.refresh();
      nav.start();
      void settings.load().then(() => {
        // Fill the draft's empty fields with the defaults, unless a session was opened meanwhile.
        const c = get(conversation);
        if (c.session) return;
        const st = get(settings.settings);
        conversation.setDraft({
          provider: c.draft.provider || st.default_provider,
          model: c.draft.model || settings.modelFor(c.draft.provider || st.default_provider, st.default_model),
          workflow: c.draft.workflow || st.default_workflow || 'chat',
        });
      });
    },

    stop() {
      unsubscribe?.();
      unsubscribe = null;
      nav.stop();
      composerImages.clear();
      imageCache.clear();
    },

    async refreshStatus() {
      try {
        status.set(await backend.status());
      } catch {
        // The shell reports the first failure; later ones keep the last status.
      }
    },

    /** Opens or closes the diagnostics panel for the open session's newest turn. */
    toggleLatestDiagnostics() {
      const ids = get(conversation).ids;
      const last = ids[ids.length - 1];
      if (!last) return;
      ui.update((u) => ({ ...u, diagnosticsTurn: u.diagnosticsTurn === last ? null : last }));
    },

    /** A new, unsaved session with the defaults; created on its first message. */
    newSession(mode: HistoryMode = 'push') {
      showNew();
      nav.home(mode);
    },

    /** Opens a session at its latest turn, or scrolled to a turn and marking it. */
    async openSession(id: string, target: TurnTarget | null = null) {
      ui.update((u) => ({ ...u, diagnosticsTurn: null }));
      await nav.open(id, target);
    },

    /** Deletes a session; the window forgets its turns, and shows a new session if it was open. */
    async deleteSession(id: string) {
      await sessions.remove(id);
      turns.forgetSession(id);
      ui.update((u) => (u.diagnosticsTurn && turns.peek(u.diagnosticsTurn) === undefined ? { ...u, diagnosticsTurn: null } : u));
      // Replaced, not pushed: Back should not lead to the deleted session.
      if (get(conversation).sessionId === id) app.newSession('replace');
    },

    /** Unmarks the turn a search or a link opened. */
    unfocus() {
      nav.unfocus();
    },

    /**
     * Sends a message in the open session, creating it first for a draft.
     * In a damaged database the backend refuses; the person is asked (see
     * damagedSend) and, if they confirm, it is sent again with force.
     */
    async send(message: string, attach: string[] = [], images: OutgoingImage[] = [], force = false): Promise<string | null> {
      const text = message.trim();
      if (!text && images.length === 0) return null;
      return post({ message: text, attach, images }, force);
    },

    /**
     * Adds files to the next message: images to send with it, anything
     * else as a table to attach (uploaded first: uploads.svelte.ts).
     */
    addFiles(files: Iterable<File>) {
      const { images, others } = splitImages(files);
      if (images.length) void composerImages.add(images);
      if (others.length) void uploads.add(others);
    },

    /** Adds the files of a paste, if it holds any; a paste of text goes on as usual. */
    paste(e: ClipboardEvent) {
      const files = pastedFiles(e.clipboardData);
      if (files.length === 0) {
        // The Linux window's web view (WebKitGTK) hands a paste of an image
        // to the page empty: no files, no types at all (a paste of text
        // has its type). The backend reads the clipboard itself.
        if (backend.kind === 'wails' && (e.clipboardData?.types?.length ?? 0) === 0) {
          e.preventDefault();
          void imagesFromBackend([() => backend.clipboardImage()]);
        }
        return;
      }
      e.preventDefault();
      app.addFiles(files);
    },

    /**
     * Adds what a drop brings. Images go with the message by their bytes,
     * never as tables by their paths. In the window, the runtime names the
     * dropped files (runtimeDrop: Backend.onFileDrop attaches those
     * paths), so only images are taken from the drop's files; in a
     * browser every other file is uploaded to be attached.
     */
    drop(dt: DataTransfer, runtimeDrop: boolean) {
      const { images } = splitImages(Array.from(dt.files ?? []));
      if (images.length) void composerImages.add(images);
      const { paths, files } = filesFromDrop(dt, backend.kind === 'wails');
      app.attach(paths.filter((p) => !imageTypeOfName(p)));
      // An image known only by its path (the window's web view gave no
      // bytes for it; only the window names paths): the backend reads it.
      const unread = paths.filter((p) => imageTypeOfName(p) && !images.some((f) => f.name === baseName(p)));
      if (unread.length) void imagesFromPaths(unread);
      const others = splitImages(files).others;
      if (others.length && !runtimeDrop) void uploads.add(others);
    },

    /**
     * Runs a new version of a turn: an edit (another message), a
     * regeneration (the same message, perhaps with another model or
     * workflow) or a retry. It follows what the turn follows, and shows
     * in its place with the version switcher.
     */
    async sendVersion(turnId: string, message: string, opts: { model?: string; workflow?: string } = {}): Promise<string | null> {
      const text = message.trim();
      const refs = turns.peek(turnId)?.userImages ?? [];
      if (!text && refs.length === 0) return null;
      let images: OutgoingImage[];
      try {
        images = await imagesOf(turnId, refs);
      } catch (err) {
        toast(messageOf(err));
        return null;
      }
      ui.update((u) => ({ ...u, editTurn: null }));
      return post({ message: text, versionOf: turnId, images, ...opts });
    },

    /**
     * Regenerates a turn with the model and workflow picked: a new version
     * of it. A model of another provider moves the session there first (a
     * turn does not record its provider; its session does).
     */
    async regenerate(turnId: string, opts: RerunOptions): Promise<string | null> {
      const s = get(conversation).session;
      const message = turns.peek(turnId)?.userMessage || turns.summary(turnId)?.user_message || '';
      if (!s || (!message && !turns.peek(turnId)?.userImages.length)) return null;
      if (opts.provider && opts.provider !== s.provider) {
        try {
          await sessions.update({ ...s, provider: opts.provider, model: opts.model || s.model });
        } catch (err) {
          toast(messageOf(err));
          return null;
        }
      }
      return app.sendVersion(turnId, message, { model: opts.model, workflow: opts.workflow });
    },

    /** Continues the answer of a stopped turn (or one ended at a limit) in a turn that follows it. */
    async continueTurn(turnId: string): Promise<string | null> {
      return post({ message: '', continueOf: turnId });
    },

    /** Starts a new session from the branch up to a turn, and opens it. */
    async fork(turnId: string) {
      try {
        const s = await backend.forkSession(turnId);
        sessions.upsert(s);
        await app.openSession(s.id);
      } catch (err) {
        toast(messageOf(err));
      }
    },

    /** Deletes a turn with every turn after it (the person confirmed), and shows the branch that stays. */
    async deleteTurn(turnId: string) {
      try {
        const n = await backend.deleteTurn(turnId);
        const sid = get(conversation).sessionId;
        ui.update((u) => ({ ...u, diagnosticsTurn: null }));
        if (sid) await conversation.open(sid);
        void sessions.refresh();
        toast(n === 1 ? 'Deleted 1 turn.' : `Deleted ${n} turns.`);
      } catch (err) {
        toast(messageOf(err));
      }
    },

    /** Answers the question overBudget asks: send past the spent budget? */
    answerOverBudget(ok: boolean) {
      const d = decideBudget;
      decideBudget = null;
      ui.update((u) => ({ ...u, overBudget: null }));
      d?.(ok);
    },

    /** Opens Settings at the providers, editing the one named if it is saved. */
    openProviderSettings(name = '') {
      const p = get(settings.providers).find((x) => x.name === name) ?? null;
      ui.update((u) => ({ ...u, settingsOpen: true, settingsTab: 'providers', providerDraft: p }));
    },

    /** Shows the Usage page: tokens and cost over time. */
    openUsage() {
      ui.update((u) => ({ ...u, diagnosticsTurn: null }));
      nav.usage();
    },

    /**
     * Shows the Evaluations page at a run ('' for the newest), compared
     * with otherId when that is set; replace renames the place (a run
     * picked where the newest was shown) rather than adding one to Back.
     */
    openEvals(runId = '', otherId = '', opts: { replace?: boolean } = {}) {
      ui.update((u) => ({ ...u, diagnosticsTurn: null }));
      nav.evals(runId, otherId, opts.replace ? 'replace' : 'push');
    },

    /** Answers the question damagedSend asks: store the message anyway? */
    answerDamaged(ok: boolean) {
      const d = decide;
      decide = null;
      ui.update((u) => ({ ...u, damagedSend: '' }));
      d?.(ok);
    },

    async stopTurn(turnId: string) {
      try {
        await backend.stopTurn(turnId);
      } catch (err) {
        toast(messageOf(err));
      }
    },

    /** The running turn of the open session, if any. */
    runningTurn(): string | null {
      const ids = get(conversation).ids;
      for (let i = ids.length - 1; i >= 0; i--) {
        if (turns.status(ids[i]!) === 'running') return ids[i]!;
      }
      return null;
    },

    async replay(turnId: string) {
      await startCopy(turnId, 'replay', () => backend.replayTurn(turnId));
    },

    async rerun(turnId: string, opts: RerunOptions) {
      await startCopy(turnId, 'rerun', () => backend.rerunTurn(turnId, opts), opts);
    },
  };

  // What a turn just sent shows of its images: the stored ones by their
  // ids, and new ones by the thumbnails the composer made, put in the
  // cache under ids made up here until the stored turn names them.
  function showSent(turnId: string, images: readonly OutgoingImage[]): UserImage[] {
    return images.map((im, i) => {
      const id = im.id || `local:${turnId}:${i}`;
      if (!im.id && im.url) imageCache.put(id, { url: im.url, name: im.name, mime: im.mime, width: im.width, height: im.height, size: im.size });
      return { id, name: im.name, mime: im.mime, width: im.width, height: im.height, size: im.size };
    });
  }

  // A turn's images with their bytes, to send again with a new version of
  // it. A turn sent from this page names its images by made-up ids until
  // it is read back: the stored turn names them.
  async function imagesOf(turnId: string, refs: readonly UserImage[]): Promise<OutgoingImage[]> {
    if (refs.some((r) => r.id.startsWith('local:'))) refs = userImagesOf((await backend.getTurn(turnId, false)).messages ?? []);
    return Promise.all(
      refs.map(async (r) => {
        const d = await backend.getImage(r.id);
        return { id: r.id, name: d.name, mime: d.mime, width: d.width, height: d.height, size: r.size, data: d.data };
      }),
    );
  }

  // The seq a turn just sent will have: one after the newest paged in.
  function nextSeq(): number {
    const ids = get(conversation).ids;
    const last = ids.length ? turns.summary(ids[ids.length - 1]!) : undefined;
    return (last?.seq ?? 0) + 1;
  }

  function showNew() {
    const s = get(settings.settings);
    conversation.newDraft({ provider: s.default_provider, model: settings.modelFor(s.default_provider, s.default_model), workflow: s.default_workflow || 'chat', workspace: '' });
    ui.update((u) => ({ ...u, diagnosticsTurn: null }));
  }

  async function startCopy(turnId: string, kind: CompareTarget['kind'], run: () => ReturnType<Backend['replayTurn']>, opts: RerunOptions = {}) {
    try {
      const orig = turns.peek(turnId);
      const ref = await run();
      turns.describe(ref.turn_id, { sessionId: ref.session_id, userMessage: orig?.userMessage ?? '', userImages: orig?.userImages ?? [], model: opts.model || orig?.model || '', workflow: opts.workflow || orig?.workflow || '', loaded: true });
      // The copy's provider as the backend stored it: what the re-run runs on.
      const [originalProvider, copyProvider] = await Promise.all([providerOf(orig?.sessionId || get(conversation).session?.id || ''), providerOf(ref.session_id)]);
      ui.update((u) => ({ ...u, rerunTurn: null, compare: { originalId: turnId, copyId: ref.turn_id, copySessionId: ref.session_id, kind, originalProvider, copyProvider } }));
      void sessions.refresh();
    } catch (err) {
      toast(messageOf(err));
    }
  }

  // A session that named no provider (made by `agentdeck run --base-url`)
  // now names the one the backend continued it on.
  async function adoptProvider(sessionId: string) {
    try {
      const s = await backend.getSession(sessionId);
      sessions.upsert({ ...(get(sessions).items.find((x) => x.id === sessionId) ?? s), provider: s.provider });
    } catch {
      // The next open reads it.
    }
  }

  /** The provider a session names: the open one, the listed ones, else asks. */
  async function providerOf(sessionId: string): Promise<string> {
    if (!sessionId) return '';
    const known = get(sessions).items.find((s) => s.id === sessionId);
    if (known) return known.provider;
    try {
      return (await backend.getSession(sessionId)).provider;
    } catch {
      return '';
    }
  }

  return app;
}

export type App = ReturnType<typeof createApp>;

function baseName(p: string): string {
  return p.split(/[\\/]/).pop() ?? p;
}

/**
 * The files a paste holds. Browsers list a copied image in files;
 * WebKitGTK (the Linux window) may offer it only as an item of kind file,
 * so the items are read too when files has none.
 */
export function pastedFiles(dt: DataTransfer | null): File[] {
  if (!dt) return [];
  const files = [...(dt.files ?? [])];
  if (files.length > 0) return files;
  const out: File[] = [];
  for (const item of Array.from(dt.items ?? [])) {
    if (item.kind !== 'file') continue;
    const f = item.getAsFile();
    if (f) out.push(f);
  }
  return out;
}

/** A session title from its first message. */
export function titleFrom(text: string): string {
  const line = text.split('\n').find((l) => l.trim())?.trim() ?? 'New session';
  return line.length > 60 ? `${line.slice(0, 57).trimEnd()}…` : line;
}

function runningTurn(id: string, sessionId: string, message: string, model: string, workflow: string, at: string, seq: number): Turn {
  return { id, session_id: sessionId, seq, user_message: message, state: 'running', workflow, model, started_at: at, completed_at: null, final_text: '', outcome: '', termination: { kind: '' }, parent_turn_id: '', continues: false };
}
