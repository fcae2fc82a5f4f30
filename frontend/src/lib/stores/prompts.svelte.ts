// The prompt library (Settings → Prompts) and the `/` palette's state.
//
// PromptLibrary holds every prompt and the projects they may belong to,
// and saves, deletes, imports and exports through the backend; the screen
// reads it. PaletteState is what the composer's palette shows: it opens
// when the message starts with "/", filters by what follows, and knows
// which entry is active; the component only renders it and acts on a pick.
import { messageOf, type Backend } from '../api';
import type { ExportReply, ProjectSummary, Prompt, PromptImport } from '../types';

export type PromptsBackend = Pick<
  Backend,
  'listPrompts' | 'savePrompt' | 'deletePrompt' | 'exportPrompts' | 'importPrompts' | 'listProjects'
>;

/** Go's zero time as JSON: what a prompt not yet saved was created at (the Go side refuses '' for a time). */
const zeroTime = '0001-01-01T00:00:00Z';

/** A prompt not yet saved: global, empty. */
export const newPrompt = (projectId = ''): Prompt => ({
  id: '',
  project_id: projectId,
  name: '',
  description: '',
  body: '',
  created_at: zeroTime,
  updated_at: zeroTime,
  variables: [],
});

export class PromptLibrary {
  #backend: PromptsBackend;
  prompts = $state.raw<Prompt[]>([]);
  projects = $state.raw<ProjectSummary[]>([]);
  loaded = $state(false);
  error = $state('');

  constructor(backend: PromptsBackend) {
    this.#backend = backend;
  }

  /** Every prompt and every project, again. */
  async load(): Promise<void> {
    try {
      const [prompts, projects] = await Promise.all([this.#backend.listPrompts('*'), this.#backend.listProjects()]);
      this.prompts = prompts ?? [];
      this.projects = projects ?? [];
      this.error = '';
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.loaded = true;
    }
  }

  /** The name of a prompt's scope: its project's, or "Global". */
  scopeName(projectId: string): string {
    if (!projectId) return 'Global';
    return this.projects.find((p) => p.id === projectId)?.name ?? 'A deleted project';
  }

  /** Saves p (new when its id is ''); the saved prompt, or throws with the backend's message. */
  async save(p: Prompt): Promise<Prompt> {
    const saved = await this.#backend.savePrompt(p);
    await this.load();
    return saved;
  }

  async remove(id: string): Promise<void> {
    await this.#backend.deletePrompt(id);
    this.prompts = this.prompts.filter((p) => p.id !== id);
  }

  /** Imports a prompt file's content; what it did, or throws naming the file's problems. */
  async importFile(content: string): Promise<PromptImport> {
    const rep = await this.#backend.importPrompts(content);
    await this.load();
    return rep;
  }

  /** Every prompt as one YAML file. */
  exportFile(): Promise<ExportReply> {
    return this.#backend.exportPrompts('*');
  }
}

/** What the palette's commands do; the composer carries them out. */
export type PaletteCommand = 'new-session' | 'switch-model' | 'switch-workflow' | 'attach';

export type PaletteItem =
  | { kind: 'prompt'; key: string; label: string; detail: string; prompt: Prompt }
  | { kind: 'command'; key: string; label: string; detail: string; command: PaletteCommand };

export const paletteCommands: ReadonlyArray<{ command: PaletteCommand; label: string; detail: string }> = [
  { command: 'new-session', label: 'New session', detail: 'Start a new session' },
  { command: 'switch-model', label: 'Switch model…', detail: 'Choose the model of this session' },
  { command: 'switch-workflow', label: 'Switch workflow…', detail: 'Choose the workflow of this session' },
  { command: 'attach', label: 'Attach file…', detail: 'Attach files to the next message' },
];

export class PaletteState {
  /** The saved prompts it offers: the global ones and the session's project's. */
  prompts = $state.raw<Prompt[]>([]);
  open = $state(false);
  /** What follows the "/": the filter. */
  query = $state('');
  active = $state(0);
  /** Escape closed it: it stays closed until the message no longer starts with "/". */
  #dismissed = false;

  items: PaletteItem[] = $derived.by(() => {
    const q = this.query.trim().toLowerCase();
    const hit = (label: string, detail: string) => !q || label.toLowerCase().includes(q) || detail.toLowerCase().includes(q);
    const rank = (label: string) => (label.toLowerCase().startsWith(q) ? 0 : 1);
    const prompts: PaletteItem[] = this.prompts
      .filter((p) => hit(p.name, p.description))
      .sort((a, b) => rank(a.name) - rank(b.name))
      .map((p) => ({ kind: 'prompt', key: `p-${p.id}`, label: p.name, detail: p.description, prompt: p }));
    const commands: PaletteItem[] = paletteCommands
      .filter((c) => hit(c.label, ''))
      .map((c) => ({ kind: 'command', key: `c-${c.command}`, label: c.label, detail: c.detail, command: c.command }));
    return [...prompts, ...commands];
  });

  /**
   * Follows the message as it is typed: open while it is one line that
   * starts with "/" (unless Escape closed it), with what follows as the
   * filter. Whether it just opened, so the caller can load the prompts.
   */
  follow(text: string): boolean {
    const slash = text.startsWith('/') && !text.includes('\n');
    if (!text.startsWith('/')) this.#dismissed = false;
    const was = this.open;
    this.open = slash && !this.#dismissed;
    if (this.open) {
      const q = text.slice(1);
      if (q !== this.query || !was) this.active = 0;
      this.query = q;
    }
    return this.open && !was;
  }

  /** Moves the active entry by delta, wrapping. */
  move(delta: number) {
    const n = this.items.length;
    if (n) this.active = (((this.active + delta) % n) + n) % n;
  }

  /** The entry Enter would pick. */
  get current(): PaletteItem | undefined {
    return this.items[this.active];
  }

  /** Closes it; dismiss keeps it closed while the "/" stays (Escape). */
  close(dismiss = false) {
    this.open = false;
    if (dismiss) this.#dismissed = true;
  }
}
