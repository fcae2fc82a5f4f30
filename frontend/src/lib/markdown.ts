// Markdown to safe HTML: parsed by marked, highlighted by highlight.js,
// then sanitized by DOMPurify with an allowlist, so nothing a model writes
// can run or pose as the app: no scripts, event handlers, styles, frames,
// forms or controls, no id, no class but highlight.js's; links only to
// http(s) and mailto and always in a new browsing context; images only
// from data: URLs (a remote image would be a request the person did not
// ask for). Our own controls (a code block's Copy button, task-list boxes)
// and classes are put in after sanitizing, in place of markers that carry
// a random per-page nonce the model cannot know.
//
// Text is rendered in blocks, one per top-level token of marked's lexer,
// each sanitized on its own (a tag the model leaves open cannot swallow
// what follows). MarkdownStream renders a streaming answer: the blocks
// before the last two are finished and keep their HTML; the open ones are
// rendered again as text arrives, at a rate that adapts to their cost.
// Reference-link definitions apply across blocks.
import { Lexer, Marked, Parser, type Links, type Token, type Tokens } from 'marked';
import createDOMPurify, { type DOMPurify } from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import css from 'highlight.js/lib/languages/css';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import java from 'highlight.js/lib/languages/java';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = { bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml };
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);
hljs.registerAliases(['sh', 'zsh', 'console'], { languageName: 'bash' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['golang'], { languageName: 'go' });
hljs.registerAliases(['yml'], { languageName: 'yaml' });
hljs.registerAliases(['rs'], { languageName: 'rust' });

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);
}

/** Highlights code as HTML (escaped when the language is unknown). */
export function highlight(code: string, lang: string): string {
  const language = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (language && hljs.getLanguage(language)) {
    try {
      return hljs.highlight(code, { language, ignoreIllegals: true }).value;
    } catch {
      // fall through to plain text
    }
  }
  return escapeHtml(code);
}

/** Renders untrusted markdown to HTML that is safe to insert. */
export function renderMarkdown(src: string): string {
  return new MarkdownStream().update(src, false).blocks.join('');
}

/**
 * Renders markdown in one pass, as one block: what the block rendering must
 * match wherever no raw HTML spans blocks (the tests compare the two).
 */
export function renderOnePass(src: string): string {
  return src ? sanitize(marked.parse(src, { async: false }) as string) : '';
}

/** Time and delayed calls for MarkdownStream and its component; tests pass their own. */
export interface Scheduler {
  now(): number;
  /** Calls fn after about ms milliseconds; returns a cancel function. */
  later(ms: number, fn: () => void): () => void;
}

export const browserScheduler: Scheduler = {
  now: () => performance.now(),
  later(ms, fn) {
    // The next frame after the delay: rendering lands where painting does.
    let frame = 0;
    const timer = setTimeout(() => (frame = requestAnimationFrame(() => fn())), ms);
    return () => {
      clearTimeout(timer);
      cancelAnimationFrame(frame);
    };
  },
};

export interface MarkdownView {
  /** Sanitized HTML, one string per block, in order. */
  blocks: string[];
  /**
   * The blocks before this index are the very strings of the previous view
   * (finished blocks, unchanged): a view needs to look at blocks[from..]
   * only, so what it does per update does not grow with the text.
   */
  from: number;
  /** Set when the view is behind its text: update again after this many ms. */
  wait: number | null;
  /**
   * Set when the last block only grew by words typed onto its end: its HTML
   * is base with text appended to its last text node, so a view may append
   * the text instead of building the block again.
   */
  tail?: { base: string; text: string };
}

/** What one update of a MarkdownStream did: the counts that must not grow with the text. */
export interface StreamWork {
  /** Characters given to marked's block lexer (the open region). */
  lexed: number;
  /** Blocks rendered (lexed inline, parsed, sanitized), cache hits not counted. */
  rendered: number;
  /** The characters of those blocks. */
  renderedChars: number;
}

export interface StreamOptions {
  /** The clock that measures what rendering costs. */
  now?: () => number;
  /** Open blocks shorter than this (characters) are never held back. */
  free?: number;
}

/**
 * Renders a text that grows, block by block. update(text, live) takes the
 * whole text so far. Blocks are marked's top-level tokens (with the blank
 * lines after them); all but the last two are finished: their HTML is kept
 * and their text is never lexed again (two, not one: the last block's next
 * character can still change where the one before it ends, as "#" after a
 * paragraph line does until a letter follows it). The open blocks are
 * rendered again on each update, except that words (letters, digits and
 * spaces) typed onto a one-line paragraph are appended to its HTML without
 * rendering (view.tail says so). When live and the open blocks are longer
 * than options.free (8,000 characters), updates are held back for a pause
 * proportional to what the last one cost, its rendering and (reported by
 * the view, with spent) its layout: those within it keep the last view and
 * say how long to wait, so a huge open block (one 400 kB paragraph) is
 * redrawn about once a second, not every frame. Short ones always show at
 * once: if they seem slow, the machine is busy, and holding them back
 * would only make the stream jerky. A text that does not continue the
 * previous one starts over.
 */
export class MarkdownStream {
  #now: () => number;
  #free: number;
  #src = '';
  /** #src.slice(0, #stable) is the finished blocks' text. */
  #stable = 0;
  #done: Block[] = [];
  /** The finished blocks' HTML, in order: the head of every view's blocks. */
  #doneHtml: string[] = [];
  #doneLinks: Links = Object.create(null) as Links;
  /** The links key the finished blocks that refer to definitions were rendered with. */
  #linksKey = '';
  /** The open blocks' HTML of the last render, by links key and text. */
  #open = new Map<string, string>();
  #openChars = 0;
  /** The last block when words typed onto its end can be appended to its HTML. */
  #tail: { raw: string; html: string; key: string } | null = null;
  #view: MarkdownView = { blocks: [], from: 0, wait: null };
  #stale = false;
  #nextAt = -Infinity;
  #holding = false;

  constructor(options: StreamOptions = {}) {
    this.#now = options.now ?? (() => performance.now());
    this.#free = options.free ?? 8000;
  }

  update(text: string, live: boolean): MarkdownView {
    const src = text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
    if (src === this.#src && !this.#stale) return this.#view;
    const start = this.#now();
    if (live && start < this.#nextAt) {
      this.#stale = true;
      this.#view = { blocks: this.#view.blocks, from: this.#view.blocks.length, wait: this.#nextAt - start };
      return this.#view;
    }
    work.lexed = work.rendered = work.renderedChars = 0;
    const words = live && this.#tail && src.length > this.#src.length && continues(src, this.#src) ? src.slice(this.#src.length) : '';
    if (words && WORDS.test(words)) this.#append(src, words);
    else this.#render(src, live);
    const end = this.#now();
    this.#holding = live && this.#openChars >= this.#free;
    this.#nextAt = this.#holding ? end + (end - start) * PAUSE : -Infinity;
    this.#stale = false;
    return this.#view;
  }

  /** What the last update did (tests count it: it must not grow with the text). */
  get work(): StreamWork {
    return { ...work };
  }

  /** Whether updates are being held back; a view then reports what showing the last one cost, with spent. */
  get holding(): boolean {
    return this.#holding;
  }

  /** Adds what showing the last update cost (the browser's layout of it) to the pause before the next. */
  spent(ms: number) {
    if (this.#holding) this.#nextAt += ms * PAUSE;
  }

  // append adds words typed onto the last block, a one-line paragraph
  // ending in a word or a space: its HTML then ends in that text, and
  // the words render as themselves.
  #append(src: string, words: string) {
    const tail = this.#tail!;
    const raw = tail.raw + words;
    const html = tail.html.slice(0, -P_END.length) + words + P_END;
    this.#open.delete(tail.key + '\0' + tail.raw);
    this.#open.set(tail.key + '\0' + raw, html);
    this.#openChars += words.length;
    this.#tail = { raw, html, key: tail.key };
    this.#src = src;
    const blocks = this.#view.blocks.slice();
    blocks[blocks.length - 1] = html;
    this.#view = { blocks, from: blocks.length - 1, wait: null, tail: { base: tail.html, text: words } };
  }

  // render lexes the open region only (the text after the finished
  // blocks), finishes all its blocks but the last two, and renders the
  // open ones. A finished block is rendered once, when it is finished
  // (with the HTML it last had open, when that is at hand), and then
  // only again if the definitions it may refer to change: so an update
  // costs the open region, whatever the length of the text.
  #render(src: string, live: boolean) {
    const shown = this.#view.blocks.length;
    let from = this.#doneHtml.length;
    if (src.length < this.#stable || !continues(src, this.#src.slice(0, this.#stable))) {
      this.#stable = 0;
      this.#done = [];
      this.#doneHtml = [];
      this.#doneLinks = Object.create(null) as Links;
      this.#linksKey = '';
      from = 0;
    }
    this.#src = src;
    const region = scan(src.slice(this.#stable));
    work.lexed += src.length - this.#stable;
    // Finish all blocks but the last two; their definitions join the links.
    const finish = Math.max(0, region.blocks.length - 2);
    const first = this.#done.length;
    for (const b of region.blocks.slice(0, finish)) {
      marked.walkTokens(b.tokens, (t) => {
        if (t.type === 'def' && !(t.tag in this.#doneLinks)) this.#doneLinks[t.tag] = { href: t.href, title: t.title };
      });
      this.#done.push({ raw: b.raw, html: '', links: null, refers: b.raw.includes('[') });
      this.#stable += b.raw.length;
    }
    const links: Links = Object.assign(Object.create(null) as Links, this.#doneLinks);
    for (const [tag, def] of Object.entries(region.links)) if (!(tag in links)) links[tag] = def;
    const linksKey = JSON.stringify(links);

    // A block without "[" cannot refer to a definition. New definitions
    // (rare: a reference list at the end) render again the finished
    // blocks that may use them; otherwise only the newly finished ones.
    const keyOf = (b: { refers: boolean }) => (b.refers ? linksKey : '');
    if (linksKey !== this.#linksKey) {
      this.#linksKey = linksKey;
      for (let i = 0; i < first; i++) {
        const b = this.#done[i]!;
        if (b.links === keyOf(b)) continue;
        b.html = renderBlock(b.raw, links, keyOf(b), true);
        b.links = keyOf(b);
        this.#doneHtml[i] = b.html;
        from = Math.min(from, i);
      }
    }
    for (let i = first; i < this.#done.length; i++) {
      const b = this.#done[i]!;
      const key = keyOf(b);
      b.html = this.#open.get(key + '\0' + b.raw) ?? renderBlock(b.raw, links, key, true);
      if (this.#open.has(key + '\0' + b.raw)) keepRendered(key + '\0' + b.raw, b.html);
      b.links = key;
      this.#doneHtml.push(b.html);
    }
    // Open blocks while live are drafts: kept from one render to the next
    // only, not in the shared cache.
    const blocks = this.#doneHtml.slice();
    const open = new Map<string, string>();
    this.#openChars = 0;
    this.#tail = null;
    for (const b of region.blocks.slice(finish)) {
      const key = keyOf({ refers: b.raw.includes('[') });
      const html = (live && this.#open.get(key + '\0' + b.raw)) || renderBlock(b.raw, links, key, !live);
      open.set(key + '\0' + b.raw, html);
      this.#openChars += b.raw.length;
      blocks.push(html);
      this.#tail = live && appendable(b, html) ? { raw: b.raw, html, key } : null;
    }
    this.#open = open;
    this.#view = { blocks, from: Math.min(from, shown, blocks.length), wait: null };
  }
}

// continues reports whether text starts with prefix. Not startsWith: V8
// compares a long prefix a character at a time (about 3 ms for 200 kB in
// Chromium), and a streaming answer checks its finished text on every
// update; equality of the slice is a memory compare.
function continues(text: string, prefix: string): boolean {
  return text.length >= prefix.length && text.slice(0, prefix.length) === prefix;
}

/** Sanitizes HTML with the markdown allowlist, then puts in our own controls. */
export function sanitize(html: string): string {
  const clean = purify().sanitize(withoutHandlers(html)) as unknown as string;
  return clean.includes(NONCE)
    ? clean.replace(MARKER, (_m, cls: string | undefined, control: string | undefined) => (cls ? ` class="${cls}"` : CONTROLS[control!]!))
    : clean;
}

/**
 * Drops every event handler attribute (on...) from the tags of an HTML
 * string, read as the browser's tokenizer reads them. DOMPurify would drop
 * them too, but only after parsing, and Chromium checks a handler against
 * the page's Content-Security-Policy as soon as any document tied to the
 * page parses it (DOMParser's, a template's, an iframe's too), so the
 * console reported an "inline event handler" for every one a model wrote:
 * nothing ran, but the page tried. Text outside tags, comments and
 * attribute values are left as they are; DOMPurify remains the sanitizer.
 */
export function withoutHandlers(html: string): string {
  if (!/["'\s/]on/i.test(html)) return html;
  let out = '';
  let copied = 0; // html before this is in out
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt < 0) break;
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end < 0 ? html.length : end + 3;
    } else if (/[A-Za-z]/.test(html[lt + 1] ?? '')) {
      const tag = readTag(html, lt);
      out += html.slice(copied, lt) + tag.text;
      copied = i = tag.end;
    } else {
      i = lt + 1;
    }
  }
  return out + html.slice(copied);
}

// readTag reads the start tag at html[at] ("<" and a letter) as HTML's
// tokenizer does (tag name, then attributes: a name up to whitespace, "/",
// ">" or "=", a value quoted or up to whitespace or ">"), and returns it
// without its on... attributes, and where it ends. A tag the text ends
// inside is returned whole: the browser drops it.
function readTag(html: string, at: number): { text: string; end: number } {
  let i = at + 1;
  while (i < html.length && !/[\s/>]/.test(html[i]!)) i++;
  let text = html.slice(at, i);
  while (i < html.length) {
    const start = i;
    while (i < html.length && /[\s/]/.test(html[i]!)) i++;
    if (i >= html.length) return { text: text + html.slice(start), end: i };
    if (html[i] === '>') return { text: text + html.slice(start, i + 1), end: i + 1 };
    const nameAt = i;
    i++; // a name's first character may be "="
    while (i < html.length && !/[\s/>=]/.test(html[i]!)) i++;
    const name = html.slice(nameAt, i);
    let j = i;
    while (j < html.length && /\s/.test(html[j]!)) j++;
    if (html[j] === '=') {
      j++;
      while (j < html.length && /\s/.test(html[j]!)) j++;
      const q = html[j];
      if (q === '"' || q === "'") {
        const close = html.indexOf(q, j + 1);
        j = close < 0 ? html.length : close + 1;
      } else {
        while (j < html.length && !/[\s>]/.test(html[j]!)) j++;
      }
      i = j;
    }
    if (!/^on/i.test(name)) text += html.slice(start, i);
  }
  return { text, end: i };
}

// ---------------------------------------------------------------- blocks --

interface Block {
  raw: string;
  html: string;
  /** The links the HTML was rendered with ('' for none needed); null before it is. */
  links: string | null;
  /** Whether it has a "[", so may refer to a definition. */
  refers: boolean;
}

interface Scanned {
  blocks: { raw: string; tokens: Token[] }[];
  links: Links;
}

const WORDS = /^[A-Za-z0-9 ]+$/;
const P_END = '</p>\n';

// appendable reports whether words typed onto a block's end can be
// appended to its HTML: a one-line paragraph that starts with a letter or
// digit (no list, heading or definition can come of it) and ends in a word
// of letters and digits or a space (no emphasis, link or entity), whose
// HTML ends with that text.
function appendable(b: { raw: string; tokens: Token[] }, html: string): boolean {
  if (b.tokens.length !== 1 || b.tokens[0]!.type !== 'paragraph' || !/^[A-Za-z0-9][^\n]*$/.test(b.raw)) return false;
  const space = b.raw.lastIndexOf(' ');
  const end = space < 0 ? b.raw : b.raw.slice(space);
  return /^ ?[A-Za-z0-9]*$/.test(end) && html.startsWith('<p>') && html.endsWith(end + P_END);
}

// PAUSE: a stream that holds updates back waits this many times what the
// last one cost (rendering, and the layout the view reports with spent)
// before the next, so showing a long open block takes a twenty-fifth of
// the time at most. Each one's cost is frames lost: in Chromium the layout
// of the UI bench's 400 kB paragraph takes about 50 ms, so it is redrawn
// every second or so, and the frame rate stays above 0.9 of the idle page's.
const PAUSE = 25;

// scan splits text into blocks at marked's top-level tokens (block-level
// lexing only: no inline work), each block a token with the blank lines
// after it. A token whose raw text does not continue the text exactly
// (marked can add a newline when it merges tokens) ends the splitting:
// the rest is one block, so no text is ever lost or doubled.
function scan(src: string): Scanned {
  const lexer = new Lexer(options());
  const tokens = lexer.blockTokens(src, []);
  const blocks: Scanned['blocks'] = [];
  let pos = 0;
  let start = 0;
  let group: Token[] = [];
  for (const t of tokens) {
    if (!src.startsWith(t.raw, pos)) break;
    if (t.type !== 'space' && group.some((g) => g.type !== 'space')) {
      blocks.push({ raw: src.slice(start, pos), tokens: group });
      start = pos;
      group = [];
    }
    group.push(t);
    pos += t.raw.length;
  }
  if (start < src.length || blocks.length === 0) blocks.push({ raw: src.slice(start), tokens: group });
  return { blocks, links: lexer.tokens.links };
}

// rendered keeps the HTML of finished blocks, least recently used first,
// whichever view rendered them: a turn scrolled back into view, or the
// same answer in another view, costs lookups only. It holds at most
// RENDERED_CHARS characters of text and HTML.
const rendered = new Map<string, string>();
// work counts what the update under way does (MarkdownStream.work).
const work: StreamWork = { lexed: 0, rendered: 0, renderedChars: 0 };
const RENDERED_CHARS = 4_000_000;
let renderedChars = 0;

// renderBlock renders one block with the definitions of the whole text
// (linksKey names them: '' when the block cannot refer to one); keep puts
// the result in the shared cache.
function renderBlock(raw: string, links: Links, linksKey: string, keep: boolean): string {
  if (!raw.trim()) return '';
  const key = linksKey + '\0' + raw;
  const hit = rendered.get(key);
  if (hit !== undefined) {
    rendered.delete(key);
    rendered.set(key, hit);
    return hit;
  }
  work.rendered++;
  work.renderedChars += raw.length;
  const html = sanitize(parseBlock(raw, links));
  if (keep) keepRendered(key, html);
  return html;
}

// keepRendered puts a finished block's HTML in the shared cache.
function keepRendered(key: string, html: string) {
  const size = key.length + html.length;
  if (size > RENDERED_CHARS / 16 || rendered.has(key)) return;
  rendered.set(key, html);
  renderedChars += size;
  for (const [k, v] of rendered) {
    if (renderedChars <= RENDERED_CHARS) break;
    rendered.delete(k);
    renderedChars -= k.length + v.length;
  }
}

function parseBlock(raw: string, links: Links): string {
  let html: string;
  try {
    const lexer = new Lexer(options());
    Object.assign(lexer.tokens.links, links);
    html = new Parser(options()).parse(lexer.lex(raw));
  } catch {
    html = `<p>${escapeHtml(raw)}</p>`;
  }
  return html;
}

// A copy of marked's options per lexer and parser: each sets fields on the
// options it is given.
function options() {
  return { ...marked.defaults };
}

// ------------------------------------------------------ renderer, markers --

// NONCE marks what our renderer writes; the sanitizer keeps a data-md
// attribute only when it carries it, and sanitize() then turns it into our
// class or control. Model text cannot carry it: it is random per page load
// and never reaches the page (the markers are replaced).
const NONCE = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
const MARKER = new RegExp(` data-md="${NONCE}:class:([a-z-]+)"|<span data-md="${NONCE}:(copy|artifact|done|todo)"></span>`, 'g');
const CONTROLS: Record<string, string> = {
  copy: '<button type="button" class="code-copy" data-copy="1" title="Copy code">Copy</button>',
  // An html or svg block opens in the artifact panel (components/artifact).
  artifact:
    '<button type="button" class="code-artifact" data-artifact="1" title="Show it rendered, in a sealed frame">Open as artifact</button>',
  done: '<input type="checkbox" class="task-box" checked="" disabled="">',
  todo: '<input type="checkbox" class="task-box" disabled="">',
};
const mark = (what: string) => `data-md="${NONCE}:${what}"`;

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    code({ text, lang, raw }: Tokens.Code) {
      const language = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      const label = escapeHtml(language || 'text');
      const block =
        `<div ${mark('class:code-block')}><div ${mark('class:code-head')}><span ${mark('class:code-lang')}>${label}</span>` +
        `${language === 'html' || language === 'svg' ? `<span ${mark('artifact')}></span>` : ''}<span ${mark('copy')}></span></div>` +
        `<pre><code class="hljs">${highlight(text, language)}</code></pre></div>`;
      // A Mermaid diagram is its code block inside a mark that the view
      // (Markdown.svelte) draws the diagram in: "mermaid" when its fence
      // is closed, "mermaid-open" while it is not (a streaming answer's
      // diagram stays source until its fence closes).
      if (language === 'mermaid') return `<div ${mark(fenceClosed(raw) ? 'class:mermaid' : 'class:mermaid-open')}>${block}</div>`;
      return block;
    },
    checkbox({ checked }: Tokens.Checkbox) {
      return `<span ${mark(checked ? 'done' : 'todo')}></span> `;
    },
    image({ href, text }: Tokens.Image) {
      if (/^data:image\//i.test(href)) return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">`;
      // Never fetched: shown as a link the person may choose to open.
      return `<a ${mark('class:img-blocked')} href="${escapeHtml(href)}" title="Remote image not loaded">[image: ${escapeHtml(text || 'untitled')}]</a>`;
    },
  },
});

/** Whether a fenced code block's raw text ends with its closing fence. */
export function fenceClosed(raw: string): boolean {
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
  if (!open) return true; // an indented block: nothing to close
  const lines = raw.replace(/\s+$/, '').split('\n');
  if (lines.length < 2) return false;
  const last = lines[lines.length - 1]!.trim();
  const fence = open[1]!;
  return last.length >= fence.length && [...last].every((ch) => ch === fence[0]);
}

// ------------------------------------------------------------- sanitizer --

// Presentational elements only: no button, input, select, textarea, label,
// form, nor details/summary (a disclosure the model could dress as one of
// the turn's own collapsed sections).
const ALLOWED_TAGS = [
  'a',
  'abbr',
  'b',
  'blockquote',
  'br',
  'code',
  'del',
  'div',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'i',
  'img',
  'kbd',
  'li',
  'mark',
  'ol',
  'p',
  'pre',
  's',
  'span',
  'strong',
  'sub',
  'sup',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'alt', 'src', 'class', 'align', 'colspan', 'rowspan', 'start', 'target', 'rel', 'data-md'];

// highlight.js's classes: hljs and hljs-<scope>, and the sub-scopes it
// adds beside one (class_ in "hljs-title class_", inherited__).
const HLJS = /^hljs(-[a-z0-9-]+)?$/;
const HLJS_SUB = /^[a-z0-9]+_+$/;

let purifier: DOMPurify | null = null;

function purify(): DOMPurify {
  if (purifier) return purifier;
  const p = createDOMPurify(window);
  // Set once: a config passed to each sanitize call is parsed again on
  // each (sets built from the lists), which was most of what sanitizing a
  // streaming answer's open block cost.
  p.setConfig({ ALLOWED_TAGS, ALLOWED_ATTR, ALLOW_DATA_ATTR: false, ALLOW_ARIA_ATTR: false, FORBID_ATTR: ['style', 'id', 'name'] });
  p.addHook('uponSanitizeAttribute', (_node, data) => {
    if (data.attrName === 'data-md') {
      data.keepAttr = data.attrValue.startsWith(NONCE + ':');
    } else if (data.attrName === 'class') {
      const names = data.attrValue.split(/\s+/);
      const kept = names.some((n) => HLJS.test(n)) ? names.filter((n) => HLJS.test(n) || HLJS_SUB.test(n)) : [];
      data.attrValue = kept.join(' ');
      data.keepAttr = kept.length > 0;
    }
  });
  p.addHook('afterSanitizeAttributes', (node) => {
    const el = node as Element;
    if (el.tagName === 'A') {
      const href = el.getAttribute('href') ?? '';
      if (/^(https?:|mailto:)/i.test(href.trim())) {
        el.setAttribute('target', '_blank');
        el.setAttribute('rel', 'noopener noreferrer');
      } else {
        el.removeAttribute('href');
        el.removeAttribute('target');
      }
    } else if (el.tagName === 'IMG') {
      const src = el.getAttribute('src') ?? '';
      if (!/^data:image\//i.test(src.trim())) {
        el.removeAttribute('src');
        el.setAttribute('title', 'Remote image not loaded');
      }
    }
  });
  purifier = p;
  return p;
}
