// Documents for the fake backend (tests and `npm run dev`), as
// backend/knowledge and backend/store/knowledge.go do: a document belongs
// to one session or one project, the same bytes twice in one place are
// refused, a session sees its own and its project's, and search is
// lexical (any word matches; more matching words rank first).
import { BackendError } from './api';
import type { DocFormat, DocumentText, KnowledgeDocument, KnowledgeHit, KnowledgePlace, KnowledgeResults, Passage, Source } from './types';

/** What the fake reads from an upload: the name decides the format, the text is the content. */
const FORMATS: Record<string, DocFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
  txt: 'text',
};

export class FakeKnowledge {
  docs: KnowledgeDocument[] = [];
  passages = new Map<string, Passage[]>();
  private nextPassage = 1;

  constructor(
    private projectOf: (sessionId: string) => string,
    private newID: () => string,
    private now: () => Date,
  ) {}

  /** Adds a document from its name and text; pages are separated by form feeds (\f). */
  add(place: KnowledgePlace, name: string, text: string): KnowledgeDocument {
    if (!place.session_id === !place.project_id)
      throw new BackendError('invalid', 'Say which session or which project the document is for.');
    const format = FORMATS[name.split('.').pop()?.toLowerCase() ?? ''];
    if (!format)
      throw new BackendError('invalid', `${name} cannot be read as a document. Add a PDF, DOCX, Markdown, HTML or plain text file.`);
    const version = `v${text.length}:${hash(text)}`;
    const same = this.docs.find(
      (d) =>
        d.version === version && (d.session_id ?? '') === (place.session_id ?? '') && (d.project_id ?? '') === (place.project_id ?? ''),
    );
    if (same) throw new BackendError('conflict', `${name} is already here, as "${same.name}": the same file was added before.`);
    const id = this.newID();
    const pages = text.split('\f');
    const ps: Passage[] = [];
    pages.forEach((page, i) => {
      let heading = '';
      for (const para of page.split(/\n{2,}/)) {
        const t = para.trim();
        if (!t) continue;
        const h = /^#+\s+(.*)$/.exec(t);
        if (h) {
          heading = h[1] ?? '';
          continue;
        }
        ps.push({ id: this.nextPassage++, document_id: id, ord: ps.length, page: i + 1, heading, text: t });
      }
    });
    const doc: KnowledgeDocument = {
      id,
      session_id: place.session_id || undefined,
      project_id: place.project_id || undefined,
      name,
      format,
      version,
      size: text.length,
      pages: pages.length,
      passages: ps.length,
      created_at: this.now().toISOString(),
    };
    this.docs.unshift(doc);
    this.passages.set(id, ps);
    return doc;
  }

  list(place: KnowledgePlace): KnowledgeDocument[] {
    const project = place.session_id ? this.projectOf(place.session_id) : place.project_id;
    return this.docs.filter((d) => (place.session_id && d.session_id === place.session_id) || (project && d.project_id === project));
  }

  get(id: string): DocumentText {
    const document = this.docs.find((d) => d.id === id);
    if (!document) throw new BackendError('not_found', `There is no document ${id}. It may have been removed.`);
    return { document, passages: this.passages.get(id) ?? [] };
  }

  remove(id: string): void {
    this.get(id);
    this.docs = this.docs.filter((d) => d.id !== id);
    this.passages.delete(id);
  }

  search(place: KnowledgePlace, query: string, limit = 20): KnowledgeResults {
    const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    const hits: KnowledgeHit[] = [];
    for (const d of this.list(place)) {
      for (const p of this.passages.get(d.id) ?? []) {
        const text = `${p.heading} ${p.text}`.toLowerCase();
        const score = words.filter((w) => text.includes(w)).length;
        if (score > 0) hits.push({ ...p, document: d.name, version: d.version, format: d.format, url: d.url, score });
      }
    }
    hits.sort((a, b) => b.score - a.score || a.id - b.id);
    return { mode: 'lexical', hits: hits.slice(0, limit) };
  }
}

/** Whether a file name is read as a document (a message that attaches one adds it to its session). */
export function isDocumentName(name: string): boolean {
  return (name.split('.').pop()?.toLowerCase() ?? '') in FORMATS;
}

/**
 * What search_knowledge gives a turn in the fake: the best two passages of
 * a session's documents for the query, numbered from 1 (or, if none
 * match, its first two); none when it has no documents.
 */
export function sourcesFrom(k: FakeKnowledge, sessionId: string, query: string): Source[] {
  let hits = k.search({ session_id: sessionId }, query, 2).hits ?? [];
  if (!hits.length) {
    const doc = k.list({ session_id: sessionId })[0];
    hits = (doc ? (k.passages.get(doc.id) ?? []) : [])
      .slice(0, 2)
      .map((p) => ({ ...p, document: doc!.name, version: doc!.version, format: doc!.format, score: 0 }));
  }
  return hits.map((h, i) => ({
    n: i + 1,
    kind: 'passage',
    document_id: h.document_id,
    passage_id: h.id,
    version: h.version,
    document: h.document,
    page: h.page,
    heading: h.heading,
    text: h.text,
  }));
}

function hash(s: string): string {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return (h >>> 0).toString(16);
}
