// Documents of a session or a project, as the Documents panel shows them
// (DocumentsPanel), and one cited passage as the passage viewer shows it
// (PassageView). Each is made by the component that shows it, with the
// backend; what they fetch is fetched by their methods. Errors are kept
// as the backend's message, to show inline.
import { messageOf, toBackendError, type Backend } from '../api';
import type { DocumentText, KnowledgeDocument, KnowledgePlace, KnowledgeResults, Source } from '../types';

export type KnowledgeBackend = Pick<
  Backend,
  'addDocument' | 'listDocuments' | 'getDocument' | 'removeDocument' | 'searchKnowledge' | 'uploadAttachment'
>;

/** What a search's mode says to a person. */
export function modeLabel(mode: KnowledgeResults['mode']): string {
  return mode === 'hybrid'
    ? 'Hybrid search (words + meaning)'
    : 'Word search only — pick an embedding model in Settings for meaning search';
}

/** A document's facts in one line: "PDF · 12 pages · 48 passages · meaning search". */
export function documentFacts(d: KnowledgeDocument): string {
  const parts = [FORMAT_NAMES[d.format] ?? d.format];
  if (d.pages > 1) parts.push(`${d.pages} pages`);
  parts.push(d.passages === 1 ? '1 passage' : `${d.passages} passages`);
  parts.push(d.embed_model ? 'meaning search' : 'word search');
  return parts.join(' · ');
}

const FORMAT_NAMES: Record<string, string> = {
  pdf: 'PDF',
  docx: 'Word',
  markdown: 'Markdown',
  html: 'HTML',
  text: 'Text',
  page: 'Web page',
};

/** The documents of one place: a session's (with its project's) or a project's. */
export class DocumentsPanel {
  docs = $state.raw<KnowledgeDocument[]>([]);
  loading = $state(true);
  /** What is being done now ("Adding report.pdf…"), '' when nothing. */
  busy = $state('');
  /** Why the last action failed, '' when it did not. */
  error = $state('');
  results = $state.raw<KnowledgeResults | null>(null);
  searchError = $state('');

  readonly #backend: KnowledgeBackend;
  readonly place: KnowledgePlace;
  readonly #read: (file: File) => Promise<string>;

  constructor(backend: KnowledgeBackend, place: KnowledgePlace, read: (file: File) => Promise<string>) {
    this.#backend = backend;
    this.place = place;
    this.#read = read;
  }

  /** Whether a document is the session's own (false: its project's, seen from a session). */
  own(d: KnowledgeDocument): boolean {
    return this.place.session_id ? d.session_id === this.place.session_id : d.project_id === this.place.project_id;
  }

  async load(): Promise<void> {
    try {
      this.docs = (await this.#backend.listDocuments(this.place)) ?? [];
      this.error = '';
    } catch (err) {
      this.error = messageOf(err);
    } finally {
      this.loading = false;
    }
  }

  /** Sends each file and adds it as a document here. */
  async addFiles(files: Iterable<File>): Promise<void> {
    for (const f of files) {
      await this.#act(`Adding ${f.name}…`, async () => {
        const stored = await this.#backend.uploadAttachment(f.name, await this.#read(f));
        await this.#backend.addDocument({ ...this.place, path: stored.path });
      });
    }
  }

  /** Reads a web page and adds it as a document here. */
  async addURL(url: string): Promise<boolean> {
    const u = url.trim();
    if (!/^https?:\/\/\S+$/i.test(u)) {
      this.error = 'Enter the address of a web page, starting with http:// or https://.';
      return false;
    }
    return this.#act(`Reading ${u}…`, () => this.#backend.addDocument({ ...this.place, url: u }).then(() => undefined));
  }

  async remove(d: KnowledgeDocument): Promise<boolean> {
    return this.#act(`Removing ${d.name}…`, () => this.#backend.removeDocument(d.id).then(() => undefined));
  }

  async search(query: string): Promise<void> {
    if (!query.trim()) {
      this.results = null;
      this.searchError = '';
      return;
    }
    try {
      this.results = await this.#backend.searchKnowledge(this.place, query);
      this.searchError = '';
    } catch (err) {
      this.results = null;
      this.searchError = messageOf(err);
    }
  }

  async #act(what: string, fn: () => Promise<void>): Promise<boolean> {
    this.busy = what;
    this.error = '';
    try {
      await fn();
      return true;
    } catch (err) {
      this.error = messageOf(err);
      return false;
    } finally {
      this.busy = '';
      await this.load();
    }
  }
}

/** The passages of a document grouped by page, in order. */
export function byPage(text: DocumentText): { page: number; passages: NonNullable<DocumentText['passages']> }[] {
  const pages: { page: number; passages: NonNullable<DocumentText['passages']> }[] = [];
  for (const p of text.passages ?? []) {
    const last = pages[pages.length - 1];
    if (last && last.page === p.page) last.passages.push(p);
    else pages.push({ page: p.page, passages: [p] });
  }
  return pages;
}

/**
 * One cited source as the viewer shows it: the document's text as it is
 * now with the passage in it, or, when the document changed since the turn
 * or was removed, the turn's own copy of the passage and why.
 */
export class PassageView {
  /** loading; current: the document as cited; changed or removed: the turn's copy is shown; copy: nothing to fetch (a web page). */
  state = $state<'loading' | 'current' | 'changed' | 'removed' | 'copy' | 'failed'>('loading');
  text = $state.raw<DocumentText | null>(null);
  error = $state('');
  readonly source: Source;
  readonly #backend: Pick<Backend, 'getDocument'>;

  constructor(backend: Pick<Backend, 'getDocument'>, source: Source) {
    this.#backend = backend;
    this.source = source;
  }

  async load(): Promise<void> {
    const s = this.source;
    if (s.kind !== 'passage' || !s.document_id) {
      this.state = 'copy';
      return;
    }
    try {
      const t = await this.#backend.getDocument(s.document_id);
      const has = (t.passages ?? []).some((p) => p.id === s.passage_id);
      this.text = t;
      this.state = t.document.version === s.version && has ? 'current' : 'changed';
    } catch (err) {
      const e = toBackendError(err);
      if (e.code === 'not_found') this.state = 'removed';
      else {
        this.state = 'failed';
        this.error = e.message;
      }
    }
  }
}
