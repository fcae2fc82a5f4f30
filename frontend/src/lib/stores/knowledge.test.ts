// The knowledge stores and labels: what the passage viewer shows for a
// source (the document as cited, the turn's copy when it changed or is
// gone, a web page's copy), the panel's refusals and mode labels, and the
// composer's and tool cards' words.
import { describe, expect, it } from 'vitest';
import { BackendError } from '../api';
import { attachmentKind } from '../attachkind';
import { toolLabel } from '../toollabels';
import type { DocumentText, Source } from '../types';
import { byPage, documentFacts, DocumentsPanel, modeLabel, PassageView, type KnowledgeBackend } from './knowledge.svelte';

const text: DocumentText = {
  document: { id: 'd1', session_id: 's1', name: 'r.pdf', format: 'pdf', version: 'v1', size: 10, pages: 2, passages: 3, created_at: '' },
  passages: [
    { id: 1, document_id: 'd1', ord: 0, page: 1, text: 'a' },
    { id: 2, document_id: 'd1', ord: 1, page: 1, text: 'b' },
    { id: 3, document_id: 'd1', ord: 2, page: 2, text: 'c' },
  ],
};
const source: Source = { n: 1, kind: 'passage', document_id: 'd1', passage_id: 2, version: 'v1', document: 'r.pdf', page: 1, text: 'b' };

describe('PassageView', () => {
  const cases: Array<[string, Source, () => Promise<DocumentText>, string]> = [
    ['the document as cited', source, async () => text, 'current'],
    ['another version', { ...source, version: 'v0' }, async () => text, 'changed'],
    ['the passage gone from it', { ...source, passage_id: 99 }, async () => text, 'changed'],
    [
      'the document removed',
      source,
      async () => {
        throw new BackendError('not_found', 'gone');
      },
      'removed',
    ],
    [
      'the database failing',
      source,
      async () => {
        throw new BackendError('internal', 'The database is busy.');
      },
      'failed',
    ],
    ['a web page', { n: 1, kind: 'page', document: 'A page', url: 'https://example.com', text: 'x' }, async () => text, 'copy'],
  ];
  it.each(cases)('%s', async (_name, s, get, want) => {
    const v = new PassageView({ getDocument: get }, s);
    await v.load();
    expect(v.state).toBe(want);
  });
});

describe('the Documents panel', () => {
  it('refuses an address that is not a web page without asking the backend', async () => {
    const calls: string[] = [];
    const backend = {
      listDocuments: async () => (calls.push('list'), []),
      addDocument: async () => {
        calls.push('add');
        throw new Error('not called');
      },
    } as unknown as KnowledgeBackend;
    const p = new DocumentsPanel(backend, { session_id: 's1' }, async () => '');
    expect(await p.addURL('file:///etc/passwd')).toBe(false);
    expect(p.error).toMatch(/http:\/\/ or https:\/\//);
    expect(calls).toEqual([]);
  });

  it('says which search ranked the results', () => {
    expect(modeLabel('hybrid')).toBe('Hybrid search (words + meaning)');
    expect(modeLabel('lexical')).toBe('Word search only — pick an embedding model in Settings for meaning search');
  });

  it('sums a document up', () => {
    expect(documentFacts(text.document)).toBe('PDF · 2 pages · 3 passages · word search');
    expect(documentFacts({ ...text.document, pages: 1, passages: 1, embed_model: 'nomic' })).toBe('PDF · 1 passage · meaning search');
  });

  it('groups passages by page', () => {
    expect(byPage(text).map((g) => [g.page, g.passages.map((p) => p.id)])).toEqual([
      [1, [1, 2]],
      [2, [3]],
    ]);
  });
});

describe('labels', () => {
  it.each([
    ['/u/sales.csv', 'table'],
    ['/u/book.XLSX', 'table'],
    ['/u/report.pdf', 'document'],
    ['/u/notes.md', 'document'],
    ['/u/page.html', 'document'],
    ['/u/archive.zip', ''],
  ])('%s is a %s', (path, want) => {
    expect(attachmentKind(path)).toBe(want);
  });

  it('names the knowledge tools with what they were asked', () => {
    expect(toolLabel('search_knowledge', { query: 'revenue' })).toBe('Search documents for “revenue”');
    expect(toolLabel('search_knowledge', '{"query":"costs"}')).toBe('Search documents for “costs”');
    expect(toolLabel('fetch_url', { url: 'https://example.com' })).toBe('Read web page https://example.com');
    expect(toolLabel('fetch_url', 'not json')).toBe('Read web page');
    expect(toolLabel('read_table', {})).toBe('');
  });
});
