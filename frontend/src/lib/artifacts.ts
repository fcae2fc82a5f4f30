// Artifacts: a model's HTML pages and SVG images, shown in the sealed
// frame (components/artifact, docs/SECURITY.md). A version of an artifact
// comes from one of two places, merged here:
//
//   - an artifact event of the turn (a create_artifact call, or a block of
//     the answer the backend made one of at its end): its block in the
//     turn's view;
//   - a ```html or ```svg code block of the answer, read here from the
//     text, so an answer whose events name no artifact (a turn stored
//     before them, or one still streaming) can be opened all the same.
//
// Within a turn the two are one version when their content is the same
// (an event made from a block, and the block it was made from): the
// event's is kept, in the block's place. Versions of one artifact share
// its key across the session's turns (a block's key is its kind, as the
// backend's blocks' are) and are numbered in the order of the turns.
import { Lexer, type Token } from 'marked';
import type { Block, TurnView } from './stores/turnview';

export type ArtifactKind = 'html' | 'svg';

export interface ArtifactVersion {
  key: string;
  title: string;
  kind: ArtifactKind;
  content: string;
  /** Where it came from: a create_artifact call ('tool') or a block of an answer ('block'). */
  source: string;
  /** The turn it belongs to, and that turn's number in the session. */
  turnId: string;
  turnSeq: number;
  /** 1-based, among the versions with its key. */
  n: number;
}

/** What the panel opens: an artifact by key, at one version (turn and content). */
export interface ArtifactTarget {
  key: string;
  turnId: string;
  content: string;
}

/** The fenced code blocks an answer's text holds whose language is html or svg, in order. */
export function codeArtifacts(text: string): { kind: ArtifactKind; content: string }[] {
  if (!/```|~~~/.test(text)) return [];
  const out: { kind: ArtifactKind; content: string }[] = [];
  let tokens: Token[];
  try {
    tokens = new Lexer({ gfm: true }).lex(text);
  } catch {
    return [];
  }
  const walk = (ts: readonly Token[]) => {
    for (const t of ts) {
      if (t.type === 'code') {
        const kind = kindOfLang((t as { lang?: string }).lang ?? '');
        if (kind && t.text.trim()) out.push({ kind, content: t.text });
        continue;
      }
      const inner = t as { tokens?: Token[]; items?: { tokens?: Token[] }[] };
      if (inner.tokens) walk(inner.tokens);
      if (inner.items) for (const it of inner.items) if (it.tokens) walk(it.tokens);
    }
  };
  walk(tokens);
  return out;
}

/** The artifact kind of a code block's language ('' when it is none). */
export function kindOfLang(lang: string): ArtifactKind | '' {
  const l = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return l === 'html' ? 'html' : l === 'svg' ? 'svg' : '';
}

/** An artifact's title: its page's <title> (or the SVG's), else what it is. */
export function titleOf(kind: ArtifactKind, content: string): string {
  const m = /<title[^>]*>([^<]{1,200})<\/title>/i.exec(content);
  const t = m?.[1]?.replace(/\s+/g, ' ').trim();
  if (t) return decodeEntities(t);
  return kind === 'svg' ? 'SVG image' : 'HTML page';
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === '#') {
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : all;
    }
    return named[e.toLowerCase()] ?? all;
  });
}

const same = (a: string, b: string) => a.trim() === b.trim();

// Each turn's artifacts, by its view (views are replaced, never changed).
const perTurn = new WeakMap<TurnView, Omit<ArtifactVersion, 'n'>[]>();
// Each text block's code artifacts, by the block (likewise).
const perBlock = new WeakMap<Block, { kind: ArtifactKind; content: string }[]>();

/** One turn's artifacts, in order: its events' and its answer's blocks', merged by content. */
export function turnArtifacts(view: TurnView): Omit<ArtifactVersion, 'n'>[] {
  const hit = perTurn.get(view);
  if (hit) return hit;
  const out: Omit<ArtifactVersion, 'n'>[] = [];
  // Which of out came from events (the rest from code blocks).
  const fromEvent = new Set<number>();
  const base = { turnId: view.id, turnSeq: view.seq };
  for (const b of view.blocks) {
    if (b.kind === 'artifact') {
      const d = b.data;
      const kind: ArtifactKind = d.kind === 'svg' ? 'svg' : 'html';
      const v = { ...base, key: d.key || kind, title: d.title || titleOf(kind, d.content), kind, content: d.content, source: d.source };
      const at = out.findIndex((o, i) => !fromEvent.has(i) && same(o.content, d.content));
      if (at >= 0) {
        out[at] = v;
        fromEvent.add(at);
      } else if (!out.some((o) => same(o.content, d.content))) {
        fromEvent.add(out.length);
        out.push(v);
      }
    } else if (b.kind === 'text') {
      let found = perBlock.get(b);
      if (!found) perBlock.set(b, (found = codeArtifacts(b.text)));
      for (const c of found) {
        if (out.some((o) => same(o.content, c.content))) continue;
        out.push({ ...base, key: c.kind, title: titleOf(c.kind, c.content), kind: c.kind, content: c.content, source: 'block' });
      }
    }
  }
  perTurn.set(view, out);
  return out;
}

/** Every version of every artifact in these turns (in the session's order), numbered per key. */
export function sessionArtifacts(views: readonly TurnView[]): ArtifactVersion[] {
  const counts = new Map<string, number>();
  const out: ArtifactVersion[] = [];
  for (const v of views) {
    for (const a of turnArtifacts(v)) {
      const n = (counts.get(a.key) ?? 0) + 1;
      counts.set(a.key, n);
      out.push({ ...a, n });
    }
  }
  return out;
}

/** The versions of one artifact, oldest first. */
export function versionsOf(all: readonly ArtifactVersion[], key: string): ArtifactVersion[] {
  return all.filter((a) => a.key === key);
}

/**
 * Which of the versions a target names: the one of its turn and content;
 * else one with its content (a target that names no turn); else its
 * turn's last; else the newest.
 */
export function indexOf(versions: readonly ArtifactVersion[], t: ArtifactTarget): number {
  const exact = versions.findIndex((v) => v.turnId === t.turnId && same(v.content, t.content));
  if (exact >= 0) return exact;
  const content = t.turnId ? -1 : versions.findIndex((v) => same(v.content, t.content));
  if (content >= 0) return content;
  for (let i = versions.length - 1; i >= 0; i--) if (versions[i]!.turnId === t.turnId) return i;
  return versions.length - 1;
}

/**
 * The document the frame is given: an HTML artifact as it is, an SVG one
 * inside a page of its own (scripts in it run the same way).
 */
export function frameDocument(kind: ArtifactKind, content: string): string {
  if (kind === 'html') return content;
  return (
    '<!doctype html><html><head><meta charset="utf-8"><style>' +
    'html,body{margin:0;height:100%}body{display:flex;align-items:center;justify-content:center}' +
    'body>svg{max-width:100%;max-height:100%;height:auto}</style></head><body>' +
    content +
    '</body></html>'
  );
}

/** A file name to download the version as: its title made safe, and its kind's extension. */
export function fileName(v: Pick<ArtifactVersion, 'title' | 'kind' | 'n'>): string {
  const base =
    v.title
      .normalize('NFKD')
      .replace(/[^\w\s.-]+/g, ' ')
      .trim()
      .replace(/[\s.]+/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60)
      .toLowerCase() || 'artifact';
  return `${base}-v${v.n}.${v.kind}`;
}

/** The MIME type of a kind, for a download. */
export function mimeOf(kind: ArtifactKind): string {
  return kind === 'svg' ? 'image/svg+xml' : 'text/html';
}
