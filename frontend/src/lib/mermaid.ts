// Drawing a model-made Mermaid diagram safely. The source is untrusted:
//
//  - mermaid runs at its strict security level (its labels pass through
//    DOMPurify, click callbacks are off) with HTML labels off (text
//    labels, no foreignObject), and every configuration key is "secure",
//    so no %%{init}%% directive or front matter can change the theme, the
//    CSS, the labels or the security level;
//  - a source that would make the browser fetch something while mermaid
//    lays the diagram out (a CSS url(…), @import, an image node's img:)
//    is refused before mermaid sees it, with the line that asks;
//  - the SVG mermaid returns is sanitized again here (DOMPurify's SVG
//    profile): no script, handler, foreignObject, link or reference
//    outside the diagram; links become inert text.
//
// mermaid is loaded with a dynamic import on the first diagram, so it is
// its own chunk and the app does not pay for it until then. Renders run
// one at a time (mermaid's configuration is global: the theme is set for
// each render), and their results are kept by source and theme, so a
// diagram drawn again (a reload, a turn scrolled back into view, a theme
// switched back) costs a lookup.
import createDOMPurify, { type DOMPurify } from 'dompurify';
import type { MermaidConfig } from 'mermaid';
import { withoutHandlers } from './markdown';

type Mermaid = typeof import('mermaid').default;

/** A source mermaid cannot draw: the line (1-based) it fails at, when known, and why. */
export class MermaidError extends Error {
  constructor(
    message: string,
    readonly line: number | null,
  ) {
    super(message);
  }
  /** "Line N: why", or why alone. */
  get text(): string {
    return this.line !== null ? `Line ${this.line}: ${this.message}` : this.message;
  }
}

let loading: Promise<Mermaid> | null = null;

/** Loads mermaid once (its own chunk). */
export function loadMermaid(): Promise<Mermaid> {
  loading ??= import('mermaid').then((m) => m.default);
  loading.catch(() => (loading = null));
  return loading;
}

/** Mermaid's configuration for a theme; every key is secure (no directive can change one). */
export function mermaidConfig(dark: boolean, keys: readonly string[]): MermaidConfig {
  const config: MermaidConfig = {
    startOnLoad: false,
    securityLevel: 'strict',
    theme: dark ? 'dark' : 'default',
    darkMode: dark,
    htmlLabels: false,
    flowchart: { htmlLabels: false },
    logLevel: 'fatal',
    suppressErrorRendering: true,
    deterministicIds: false,
    maxTextSize: 100_000,
    maxEdges: 2000,
  };
  config.secure = [...new Set([...keys, ...Object.keys(config), 'secure', 'themeCSS', 'themeVariables', 'fontFamily', 'altFontFamily'])];
  return config;
}

// CSS functions that fetch (url, image-set, …), @import, and an image
// node's img: key. Tested on the source with CSS escapes decoded, so
// u\72 l( is url( too.
const FETCHES = /\b(url|image-set|-webkit-image-set|image|cross-fade|src)\s*\(|@import|\bimg\s*:/i;

/** Decodes CSS escapes (\72 and \r both stand for r). */
function unescapeCss(s: string): string {
  return s.replace(/\\([0-9a-f]{1,6})\s?|\\(.)/gi, (_m, hex: string | undefined, ch: string | undefined) =>
    hex ? String.fromCodePoint(Math.min(parseInt(hex, 16), 0x10ffff) || 0xfffd) : ch!,
  );
}

/** Refuses a source that asks the browser to load something; null when it asks nothing. */
export function checkSource(source: string): MermaidError | null {
  const lines = source.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (FETCHES.test(unescapeCss(lines[i]!))) {
      return new MermaidError('diagrams cannot load URLs or images (url(…), @import, img:); remove it.', i + 1);
    }
  }
  return null;
}

/** What a mermaid parse error says, with its line (1-based) when it names one. */
export function errorOf(err: unknown): MermaidError {
  if (err instanceof MermaidError) return err;
  const e = err as { message?: unknown; hash?: { loc?: { first_line?: unknown }; line?: unknown } } | null;
  const raw = typeof e?.message === 'string' ? e.message : String(err);
  let line: number | null = null;
  const loc = e?.hash?.loc?.first_line;
  if (typeof loc === 'number') line = loc;
  else if (typeof e?.hash?.line === 'number') line = e.hash.line + 1;
  else {
    const m = /line:? (\d+)/i.exec(raw);
    if (m) line = Number(m[1]);
  }
  return new MermaidError(reason(raw), line);
}

// reason keeps what a parse error says without its position: jison's
// "Parse error on line 3:\n...text\n----^\nExpecting 'A', 'B', got 'C'"
// becomes "expecting 'A', 'B', got 'C'"; langium's "Parsing failed: …
// on line 2, column 3: …" keeps its last part.
function reason(raw: string): string {
  const lines = raw
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const expecting = lines.find((l) => /^Expecting /.test(l));
  let why = expecting ?? lines.filter((l) => !/^(Parse error on line|\.\.\.|-*\^$)/.test(l)).join(' ');
  why = why.replace(/^(Parsing failed|Error):\s*/i, '').replace(/^.*?line:? \d+(, column:? \d+)?:?\s*/i, '');
  if (/^No diagram type detected/i.test(why) || /UnknownDiagramError/.test(why)) {
    why = 'this is not a diagram type mermaid knows (it should start with flowchart, sequenceDiagram, classDiagram, …).';
  }
  if (!why) why = 'mermaid could not read this diagram.';
  if (why.length > 300) why = why.slice(0, 299) + '…';
  return why.charAt(0).toLowerCase() + why.slice(1);
}

// ----------------------------------------------------------- sanitizing --

// A reference to something in the diagram: url(#id), or url(id), which
// mermaid writes for its gradients and shadows (a bare word is a relative
// URL to CSS, so it is made #id).
const LOCAL_URL = /url\(\s*(['"]?)#?([\w.-]+)\1\s*\)/gi;

/** CSS with its references made local; a reference that is not local is left for fetches() to find. */
function localUrls(css: string): string {
  return css.replace(LOCAL_URL, 'url(#$2)');
}

/** Whether CSS (after localUrls) would fetch anything. */
function fetches(css: string): boolean {
  return FETCHES.test(unescapeCss(css.replace(/url\(#[\w.-]+\)/g, '')));
}

let purifier: DOMPurify | null = null;

function purify(): DOMPurify {
  if (purifier) return purifier;
  const p = createDOMPurify(window);
  p.addHook('uponSanitizeElement', (node, data) => {
    // A <style> mermaid wrote for the diagram: no fetches in it.
    if (data.tagName !== 'style') return;
    const css = localUrls(node.textContent ?? '');
    node.textContent = fetches(css) ? '' : css;
  });
  p.addHook('uponSanitizeAttribute', (_node, data) => {
    const name = data.attrName;
    if (name === 'href' || name === 'xlink:href') {
      // Only references inside the diagram (markers, gradients).
      data.keepAttr = /^#[\w:.-]+$/.test(data.attrValue.trim());
    } else if (/^(target|src|action|formaction|ping)$/.test(name)) {
      data.keepAttr = false;
    } else if (data.attrValue && /url|image|src|@import|\\/i.test(data.attrValue)) {
      // fill="url(#gradient)" and style="…url(#shadow)" stay; a fetch goes.
      data.attrValue = localUrls(data.attrValue);
      if (fetches(data.attrValue)) data.keepAttr = false;
    }
  });
  purifier = p;
  return p;
}

/** Sanitizes the SVG mermaid made: drawing only, nothing that runs, loads or links. */
export function sanitizeSvg(svg: string): string {
  return purify().sanitize(withoutHandlers(svg), {
    USE_PROFILES: { svg: true, svgFilters: true },
    ADD_TAGS: ['style'],
    FORBID_TAGS: ['foreignObject', 'script', 'image', 'feImage', 'use', 'a', 'animate', 'set', 'animateMotion', 'animateTransform'],
    KEEP_CONTENT: true,
  }) as unknown as string;
}

// ------------------------------------------------------------ rendering --

let queue: Promise<unknown> = Promise.resolve();
let counter = 0;
const cache = new Map<string, { svg: string } | { error: MermaidError }>();
const CACHED = 64;

/** Whether a diagram for this source and theme is already drawn (no wait, no load). */
export function cachedDiagram(source: string, dark: boolean): { svg: string } | { error: MermaidError } | undefined {
  return cache.get((dark ? 'd' : 'l') + source);
}

/**
 * Draws a diagram: resolves to its sanitized SVG, or rejects with a
 * MermaidError naming the line when the source does not parse.
 */
export function renderMermaid(source: string, dark: boolean): Promise<string> {
  const key = (dark ? 'd' : 'l') + source;
  const hit = cache.get(key);
  if (hit) return 'svg' in hit ? Promise.resolve(hit.svg) : Promise.reject(hit.error);
  const job = queue.then(() => draw(source, dark));
  queue = job.catch(() => undefined);
  return job.then(
    (svg) => remember(key, { svg }).svg,
    (err: unknown) => {
      throw remember(key, { error: errorOf(err) }).error;
    },
  );
}

function remember<T extends { svg: string } | { error: MermaidError }>(key: string, v: T): T {
  cache.set(key, v);
  if (cache.size > CACHED) cache.delete(cache.keys().next().value!);
  return v;
}

async function draw(source: string, dark: boolean): Promise<string> {
  const refused = checkSource(source);
  if (refused) throw refused;
  const mermaid = await loadMermaid();
  mermaid.initialize(mermaidConfig(dark, Object.keys(mermaid.mermaidAPI.defaultConfig)));
  // mermaid's DOMPurify parses a label's markup, and Chromium reports an
  // inline handler in it to the page's CSP as soon as it is parsed (see
  // withoutHandlers): handlers go before mermaid sees the source.
  const text = /\son[a-z]+\s*=/i.test(source) ? withoutHandlers(source) : source;
  await mermaid.parse(text);
  const id = `agentdeck-mermaid-${++counter}`;
  try {
    const { svg } = await mermaid.render(id, text);
    return sanitizeSvg(svg);
  } finally {
    // mermaid leaves its scratch element behind when a render fails.
    document.getElementById('d' + id)?.remove();
  }
}
