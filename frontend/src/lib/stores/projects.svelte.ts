// The projects the session list groups by, and the tags in use, held once.
// Both are short lists read whole (ListProjects, ListTags): a project's
// count is its number of sessions, archived ones too, as the backend
// counts them. Tags are read when first asked for (the tag filter or a
// row's tag editor), not when the window opens.
import { messageOf, type Backend } from '../api';
import type { Project, ProjectSummary, TagCount } from '../types';

export type ProjectsBackend = Pick<
  Backend,
  'listProjects' | 'getProject' | 'createProject' | 'updateProject' | 'deleteProject' | 'listTags'
>;

export class ProjectsStore {
  #backend: ProjectsBackend;
  #gen = 0;
  items = $state.raw<ProjectSummary[]>([]);
  loaded = $state(false);
  error = $state('');
  tags = $state.raw<TagCount[]>([]);
  #tagsRead: Promise<void> | null = null;

  constructor(backend: ProjectsBackend) {
    this.#backend = backend;
  }

  /** The project of an id, if known. */
  byId(id: string): ProjectSummary | undefined {
    return id ? this.items.find((p) => p.id === id) : undefined;
  }

  async refresh() {
    const gen = ++this.#gen;
    try {
      const list = (await this.#backend.listProjects()) ?? [];
      if (gen !== this.#gen) return;
      this.items = list;
      this.error = '';
    } catch (err) {
      if (gen === this.#gen) this.error = messageOf(err);
    } finally {
      if (gen === this.#gen) this.loaded = true;
    }
  }

  /** Reads the tags in use, once unless again is set (after tags changed). */
  loadTags(again = false): Promise<void> {
    if (this.#tagsRead && !again) return this.#tagsRead;
    this.#tagsRead = (async () => {
      try {
        this.tags = (await this.#backend.listTags()) ?? [];
      } catch {
        // Completion is a help: without it, tags are typed whole.
        this.#tagsRead = null;
      }
    })();
    return this.#tagsRead;
  }

  /** Makes a project; throws the backend's error (a name taken, say) for the form to show. */
  async create(name: string): Promise<Project> {
    // The backend sets the id and the times; a time must still parse (Go's zero time).
    const zero = '0001-01-01T00:00:00Z';
    const p = await this.#backend.createProject({
      id: '',
      name: name.trim(),
      created_at: zero,
      updated_at: zero,
      settings: {},
      sessions: 0,
    });
    this.items = sortProjects([...this.items.filter((x) => x.id !== p.id), p]);
    return p;
  }

  async rename(id: string, name: string) {
    const p = this.byId(id);
    if (!p || !name.trim() || name.trim() === p.name) return;
    // From the project as stored: the list holds no settings, and a
    // rename must keep them as they are now.
    const stored = await this.#backend.getProject(id);
    await this.#backend.updateProject({ ...stored, name: name.trim() });
    this.items = sortProjects(this.items.map((x) => (x.id === id ? { ...x, name: name.trim() } : x)));
  }

  /** Deletes a project; its sessions go to no project ('keep') or are deleted ('delete'). */
  async remove(id: string, sessions: 'keep' | 'delete') {
    await this.#backend.deleteProject(id, sessions);
    this.items = this.items.filter((x) => x.id !== id);
  }

  /** A session moved between projects: the counts follow, until the next read. */
  counted(from: string, to: string) {
    if (from === to) return;
    this.items = this.items.map((p) =>
      p.id === from ? { ...p, sessions: Math.max(0, p.sessions - 1) } : p.id === to ? { ...p, sessions: p.sessions + 1 } : p,
    );
  }
}

function sortProjects(list: ProjectSummary[]): ProjectSummary[] {
  return [...list].sort((a, b) => a.name.localeCompare(b.name));
}
