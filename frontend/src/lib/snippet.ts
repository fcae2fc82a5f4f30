// Search snippets come as plain text with the matches between \x02 and
// \x03 (store.HighlightStart/End). They are split into text segments that
// components render as text nodes, marks as <mark>: the snippet is never
// parsed as HTML.

export interface Segment {
  text: string;
  mark: boolean;
}

/** With keepLines, line breaks and tabs stay (an answer shown whole); else they read as spaces (a one-line snippet). */
export function splitHighlights(snippet: string, keepLines = false): Segment[] {
  const out: Segment[] = [];
  let mark = false;
  let buf = '';
  const flush = () => {
    if (buf) out.push({ text: buf, mark });
    buf = '';
  };
  for (const ch of snippet) {
    if (ch === '\x02') {
      flush();
      mark = true;
    } else if (ch === '\x03') {
      flush();
      mark = false;
    } else if (keepLines && (ch === '\n' || ch === '\t')) {
      buf += ch;
    } else if (ch === '\n' || ch === '\r' || ch === '\t') {
      buf += ' ';
    } else if (ch >= ' ' || ch > '\x7f') {
      buf += ch;
    }
  }
  flush();
  return out;
}
