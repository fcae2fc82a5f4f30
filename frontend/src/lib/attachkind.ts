// What an attached file becomes, by its name's extension, as the backend
// reads it (backend/data's sniffing for tables, backend/knowledge/extract
// for documents): a table to query, or a document to search and cite.
// The backend decides from the bytes; this is the composer's label only.
const TABLES = new Set(['csv', 'tsv', 'json', 'jsonl', 'ndjson', 'xlsx']);
const DOCUMENTS = new Set(['pdf', 'docx', 'md', 'markdown', 'html', 'htm', 'txt']);

/** "table", "document", or '' when the name does not say. */
export function attachmentKind(path: string): 'table' | 'document' | '' {
  const ext = path.split(/[\\/]/).pop()?.split('.').pop()?.toLowerCase() ?? '';
  if (TABLES.has(ext)) return 'table';
  if (DOCUMENTS.has(ext)) return 'document';
  return '';
}
