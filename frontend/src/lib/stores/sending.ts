// Sending: a message in the open session (creating the session first for
// a draft), a new version of a turn, a continuation, and copies of a turn
// to compare (replay, re-run). A send the backend refuses because the
// database is damaged or the budget is spent asks the person (ui.svelte.ts)
// and, if they confirm, goes again with the refusal waived.
import { isDamaged, isOverBudget, messageOf, type Backend } from '../api';
import type { GroupRef, GroupTarget, ImageData, RerunOptions, Turn } from '../types';
import type { ConversationStore } from './conversation.svelte';
import type { ImageCache } from './imagecache';
import { userImagesOf } from './reducer';
import type { SessionsStore } from './sessions.svelte';
import type { SideBySide } from './sidebyside.svelte';
import type { SettingsStore } from './settings.svelte';
import type { TurnStore } from './turns.svelte';
import type { UserImage } from './turnview';
import type { CompareTarget, UIState } from './ui.svelte';

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

/** What sending reads and changes. */
export interface SendDeps {
  backend: Backend;
  conversation: ConversationStore;
  sessions: SessionsStore;
  settings: SettingsStore;
  turns: TurnStore;
  /** The columns the open session shows. */
  sideBySide: SideBySide;
  ui: UIState;
  imageCache: ImageCache;
  now: () => Date;
  /** The new session shown got its id. */
  adopted: (sessionId: string) => void;
  /** The place to come back to is now the newest turn. */
  unfocus: () => void;
  refreshStatus: () => Promise<void>;
  toast: (message: string) => void;
}

export class Sender {
  #d: SendDeps;

  constructor(deps: SendDeps) {
    this.#d = deps;
  }

  /**
   * Sends a message in the open session, creating it first for a draft.
   * In a damaged database the backend refuses; the person is asked (see
   * damagedSend) and, if they confirm, it is sent again with force.
   */
  async send(message: string, attach: string[] = [], images: OutgoingImage[] = [], force = false): Promise<string | null> {
    const text = message.trim();
    if (!text && images.length === 0) return null;
    return this.#post({ message: text, attach, images }, force);
  }

  /**
   * Runs a new version of a turn: an edit (another message), a
   * regeneration (the same message, perhaps with another model or
   * workflow) or a retry. It follows what the turn follows, and shows
   * in its place with the version switcher.
   */
  async sendVersion(turnId: string, message: string, opts: { model?: string; workflow?: string } = {}): Promise<string | null> {
    const text = message.trim();
    const refs = this.#d.turns.peek(turnId)?.userImages ?? [];
    if (!text && refs.length === 0) return null;
    let images: OutgoingImage[];
    try {
      images = await this.#imagesOf(turnId, refs);
    } catch (err) {
      this.#d.toast(messageOf(err));
      return null;
    }
    this.#d.ui.editTurn = null;
    return this.#post({ message: text, versionOf: turnId, images, ...opts });
  }

  /**
   * Regenerates a turn with the model and workflow picked: a new version
   * of it. A model of another provider moves the session there first (a
   * turn does not record its provider; its session does).
   */
  async regenerate(turnId: string, opts: RerunOptions): Promise<string | null> {
    const { conversation, turns, sessions } = this.#d;
    const s = conversation.session;
    const message = turns.peek(turnId)?.userMessage || turns.summary(turnId)?.user_message || '';
    if (!s || (!message && !turns.peek(turnId)?.userImages.length)) return null;
    if (opts.provider && opts.provider !== s.provider) {
      try {
        await sessions.update({ ...s, provider: opts.provider, model: opts.model || s.model });
      } catch (err) {
        this.#d.toast(messageOf(err));
        return null;
      }
    }
    return this.sendVersion(turnId, message, { model: opts.model, workflow: opts.workflow });
  }

  /** Continues the answer of a stopped turn (or one ended at a limit) in a turn that follows it. */
  async continueTurn(turnId: string): Promise<string | null> {
    return this.#post({ message: '', continueOf: turnId });
  }

  async replay(turnId: string) {
    await this.#startCopy(turnId, 'replay', () => this.#d.backend.replayTurn(turnId));
  }

  async rerun(turnId: string, opts: RerunOptions) {
    await this.#startCopy(turnId, 'rerun', () => this.#d.backend.rerunTurn(turnId, opts), opts);
  }

  /**
   * Sends a message side by side: to targets (2 to 4), or, with follows,
   * to each column's own branch of that group. A draft session is
   * created first. The columns show once the group is read back.
   */
  async sendGroup(
    message: string,
    g: { targets?: GroupTarget[]; blind?: boolean; follows?: string },
    attach: string[] = [],
    images: OutgoingImage[] = [],
  ): Promise<GroupRef | null> {
    const text = message.trim();
    if (!text && images.length === 0) return null;
    const { backend, conversation, sessions, turns, sideBySide } = this.#d;
    let session = conversation.session;
    try {
      if (!session) {
        session = await sessions.create({ ...conversation.draft, title: titleFrom(text || images[0]?.name || '') });
        conversation.adopt(session);
        this.#d.adopted(session.id);
      }
      const before = g.follows ? sideBySide.columns : [];
      const ref = await backend.sendSideBySide({
        send: {
          session_id: session.id,
          message: text,
          attach: attach.length ? attach : undefined,
          images: images.length
            ? images.map(({ name, mime, width, height, data }): ImageData => ({ name, mime, width, height, data }))
            : undefined,
        },
        targets: g.follows ? null : (g.targets ?? []),
        blind: g.blind || undefined,
        follows: g.follows || undefined,
      });
      const startedAt = this.#d.now().toISOString();
      const shown = this.#showSent(ref.turns?.[0]?.turn_id ?? '', images);
      const parent = this.#lastShown();
      for (const [slot, r] of (ref.turns ?? []).entries()) {
        turns.describe(r.turn_id, { sessionId: session.id, userMessage: text, userImages: shown, startedAt, loaded: true });
        sessions.noteTurn(session.id, r.turn_id, 'running');
        const row = { ...runningTurn(r.turn_id, session.id, text, '', '', startedAt, r.seq), group_id: ref.group_id, group_slot: slot };
        turns.remember([{ ...row, parent_turn_id: before.find((c) => c.slot === slot)?.last ?? parent }]);
      }
      const first = ref.turns?.[0];
      if (first) conversation.addTurn(turns.summary(first.turn_id)!);
      const sid = session.id;
      sessions.upsert({ ...(sessions.items.find((x) => x.id === sid) ?? session), open_group_id: ref.group_id });
      sessions.touch(session.id, startedAt);
      if (conversation.focus) this.#d.unfocus();
      await sideBySide.load(session.id, ref.group_id);
      // What each column runs, as the group was stored (a blind one shuffled).
      for (const c of sideBySide.last?.columns ?? []) {
        const t = sideBySide.last?.targets?.[c.slot];
        if (t && ref.turns?.some((r) => r.turn_id === c.turn_id))
          turns.describe(c.turn_id, { model: t.model, workflow: t.workflow || session.workflow });
      }
      return ref;
    } catch (err) {
      this.#d.toast(messageOf(err));
      return null;
    }
  }

  // Starts a turn in the open session (creating a draft first) and shows it.
  async #post(p: Post, force = false, overBudget = false): Promise<string | null> {
    const { backend, conversation, sessions, settings, turns } = this.#d;
    let session = conversation.session;
    try {
      if (!session) {
        const d = conversation.draft;
        session = await sessions.create({ ...d, title: titleFrom(p.message || p.images?.[0]?.name || '') });
        conversation.adopt(session);
        this.#d.adopted(session.id);
      }
      const model = p.model || settings.modelFor(session.provider || settings.settings.default_provider, session.model);
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
        images: images.length
          ? images.map(({ name, mime, width, height, data }): ImageData => ({ name, mime, width, height, data }))
          : undefined,
      });
      const startedAt = this.#d.now().toISOString();
      const parent = p.continueOf || (p.versionOf ? (turns.summary(p.versionOf)?.parent_turn_id ?? '') : this.#lastShown());
      turns.describe(ref.turn_id, {
        sessionId: session.id,
        userMessage: p.message,
        userImages: this.#showSent(ref.turn_id, images),
        model,
        workflow,
        continues: !!p.continueOf,
        startedAt: turns.peek(ref.turn_id)?.startedAt || startedAt,
        loaded: true,
      });
      conversation.addTurn(
        {
          ...runningTurn(ref.turn_id, session.id, p.message, model, workflow, startedAt, ref.seq || this.#nextSeq()),
          parent_turn_id: parent,
          continues: !!p.continueOf,
        },
        p.versionOf,
      );
      sessions.touch(session.id, startedAt);
      sessions.noteTurn(session.id, ref.turn_id, 'running');
      // The place to come back to is now the newest turn.
      if (conversation.focus) this.#d.unfocus();
      if (!session.provider) void this.#adoptProvider(session.id);
      return ref.turn_id;
    } catch (err) {
      if (isDamaged(err) && !force) {
        void this.#d.refreshStatus();
        return (await this.#d.ui.askDamaged(messageOf(err))) ? this.#post(p, true, overBudget) : null;
      }
      if (isOverBudget(err) && !overBudget && session) {
        const provider = session.provider || settings.settings.default_provider;
        const ok = await this.#d.ui.askOverBudget(messageOf(err), provider, () => this.#refuses(provider));
        return ok ? this.#post(p, force, true) : null;
      }
      this.#d.toast(messageOf(err));
      return null;
    }
  }

  // Whether a provider's spent budget refuses: ask anyway when unknown (the backend refuses a provider that refuses).
  async #refuses(provider: string): Promise<boolean> {
    try {
      return (await this.#d.backend.budgetState(provider)).budget.over_limit === 'refuse';
    } catch {
      return false;
    }
  }

  /** The last turn the open session shows: what a new message follows. */
  #lastShown(): string {
    const ids = this.#d.conversation.ids;
    return ids[ids.length - 1] ?? '';
  }

  // The seq a turn just sent will have: one after the newest paged in.
  #nextSeq(): number {
    const ids = this.#d.conversation.ids;
    const last = ids.length ? this.#d.turns.summary(ids[ids.length - 1]!) : undefined;
    return (last?.seq ?? 0) + 1;
  }

  // What a turn just sent shows of its images: the stored ones by their
  // ids, and new ones by the thumbnails the composer made, put in the
  // cache under ids made up here until the stored turn names them.
  #showSent(turnId: string, images: readonly OutgoingImage[]): UserImage[] {
    return images.map((im, i) => {
      const id = im.id || `local:${turnId}:${i}`;
      if (!im.id && im.url)
        this.#d.imageCache.put(id, { url: im.url, name: im.name, mime: im.mime, width: im.width, height: im.height, size: im.size });
      return { id, name: im.name, mime: im.mime, width: im.width, height: im.height, size: im.size };
    });
  }

  // A turn's images with their bytes, to send again with a new version of
  // it. A turn sent from this page names its images by made-up ids until
  // it is read back: the stored turn names them.
  async #imagesOf(turnId: string, refs: readonly UserImage[]): Promise<OutgoingImage[]> {
    const backend = this.#d.backend;
    if (refs.some((r) => r.id.startsWith('local:'))) refs = userImagesOf((await backend.getTurn(turnId, false)).messages ?? []);
    return Promise.all(
      refs.map(async (r) => {
        const d = await backend.getImage(r.id);
        return { id: r.id, name: d.name, mime: d.mime, width: d.width, height: d.height, size: r.size, data: d.data };
      }),
    );
  }

  async #startCopy(turnId: string, kind: CompareTarget['kind'], run: () => ReturnType<Backend['replayTurn']>, opts: RerunOptions = {}) {
    const { turns, ui } = this.#d;
    try {
      const orig = turns.peek(turnId);
      const ref = await run();
      turns.describe(ref.turn_id, {
        sessionId: ref.session_id,
        userMessage: orig?.userMessage ?? '',
        userImages: orig?.userImages ?? [],
        model: opts.model || orig?.model || '',
        workflow: opts.workflow || orig?.workflow || '',
        loaded: true,
      });
      // The copy's provider as the backend stored it: what the re-run runs on.
      const [originalProvider, copyProvider] = await Promise.all([
        this.#providerOf(orig?.sessionId || this.#d.conversation.session?.id || ''),
        this.#providerOf(ref.session_id),
      ]);
      ui.rerunTurn = null;
      ui.compare = { originalId: turnId, copyId: ref.turn_id, copySessionId: ref.session_id, kind, originalProvider, copyProvider };
      void this.#d.sessions.refresh();
    } catch (err) {
      this.#d.toast(messageOf(err));
    }
  }

  // A session that named no provider (made by `agentdeck run --base-url`)
  // now names the one the backend continued it on.
  async #adoptProvider(sessionId: string) {
    const sessions = this.#d.sessions;
    try {
      const s = await this.#d.backend.getSession(sessionId);
      sessions.upsert({ ...(sessions.items.find((x) => x.id === sessionId) ?? s), provider: s.provider });
    } catch {
      // The next open reads it.
    }
  }

  /** The provider a session names: the open one, the listed ones, else asks. */
  async #providerOf(sessionId: string): Promise<string> {
    if (!sessionId) return '';
    const known = this.#d.sessions.items.find((s) => s.id === sessionId);
    if (known) return known.provider;
    try {
      return (await this.#d.backend.getSession(sessionId)).provider;
    } catch {
      return '';
    }
  }
}

/** A session title from its first message. */
export function titleFrom(text: string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? 'New session';
  return line.length > 60 ? `${line.slice(0, 57).trimEnd()}…` : line;
}

function runningTurn(id: string, sessionId: string, message: string, model: string, workflow: string, at: string, seq: number): Turn {
  return {
    id,
    session_id: sessionId,
    seq,
    user_message: message,
    state: 'running',
    workflow,
    model,
    started_at: at,
    completed_at: null,
    final_text: '',
    outcome: '',
    termination: { kind: '' },
    parent_turn_id: '',
    continues: false,
  };
}
