// Markdown to safe HTML: parsed by marked, highlighted by highlight.js,
// then sanitized by DOMPurify with an allowlist, so nothing a model writes
// can run: no scripts, event handlers, styles, frames or forms; links only
// to http(s) and mailto and always in a new browsing context; images only
// from data: URLs (a remote image would be a request the person did not
// ask for).
import { Marked, type Tokens } from 'marked';
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

const ALLOWED_TAGS = [
  'a', 'abbr', 'b', 'blockquote', 'br', 'button', 'code', 'del', 'details', 'div', 'em', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i',
  'img', 'input', 'kbd', 'li', 'mark', 'ol', 'p', 'pre', 's', 'span', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'th',
  'thead', 'tr', 'ul',
];
const ALLOWED_ATTR = ['href', 'title', 'alt', 'src', 'class', 'type', 'checked', 'disabled', 'align', 'colspan', 'rowspan', 'start', 'open', 'data-copy', 'target', 'rel'];

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

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    code({ text, lang }: Tokens.Code) {
      const language = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      const label = escapeHtml(language || 'text');
      return (
        `<div class="code-block"><div class="code-head"><span class="code-lang">${label}</span>` +
        `<button type="button" class="code-copy" data-copy="1" title="Copy code">Copy</button></div>` +
        `<pre><code class="hljs">${highlight(text, language)}</code></pre></div>`
      );
    },
    image({ href, text }: Tokens.Image) {
      if (/^data:image\//i.test(href)) return `<img src="${escapeHtml(href)}" alt="${escapeHtml(text)}">`;
      // Never fetched: shown as a link the person may choose to open.
      return `<a class="img-blocked" href="${escapeHtml(href)}" title="Remote image not loaded">[image: ${escapeHtml(text || 'untitled')}]</a>`;
    },
  },
});

let purifier: DOMPurify | null = null;

function purify(): DOMPurify {
  if (purifier) return purifier;
  const p = createDOMPurify(window);
  p.addHook('afterSanitizeAttributes', (node) => {
    const el = node as Element;
    switch (el.tagName) {
      case 'A': {
        const href = el.getAttribute('href') ?? '';
        if (/^(https?:|mailto:)/i.test(href.trim())) {
          el.setAttribute('target', '_blank');
          el.setAttribute('rel', 'noopener noreferrer');
        } else {
          el.removeAttribute('href');
          el.removeAttribute('target');
        }
        break;
      }
      case 'IMG': {
        const src = el.getAttribute('src') ?? '';
        if (!/^data:image\//i.test(src.trim())) {
          el.removeAttribute('src');
          el.setAttribute('title', 'Remote image not loaded');
        }
        break;
      }
      case 'INPUT':
        // Only GFM task-list boxes, and read-only.
        el.setAttribute('type', 'checkbox');
        el.setAttribute('disabled', '');
        break;
      case 'BUTTON':
        el.setAttribute('type', 'button');
        break;
    }
  });
  purifier = p;
  return p;
}

/** Sanitizes HTML with the markdown allowlist. */
export function sanitize(html: string): string {
  return purify().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    FORBID_ATTR: ['style'],
  }) as unknown as string;
}

/** Renders untrusted markdown to HTML that is safe to insert. */
export function renderMarkdown(src: string): string {
  if (!src) return '';
  let html: string;
  try {
    html = marked.parse(src, { async: false }) as string;
  } catch {
    html = `<p>${escapeHtml(src)}</p>`;
  }
  return sanitize(html);
}

/**
 * Splits markdown into chunks of at least `min` characters, only at blank
 * lines outside code fences, so each chunk renders on its own. While an
 * answer streams, only the last chunk changes: the earlier ones keep their
 * rendered HTML and their DOM, and the work per frame stays constant
 * instead of growing with the answer.
 */
export function splitBlocks(src: string, min = 2000): string[] {
  const out: string[] = [];
  let start = 0;
  let fence = '';
  let pos = 0;
  while (pos < src.length) {
    const nl = src.indexOf('\n', pos);
    const end = nl === -1 ? src.length : nl + 1;
    const line = src.slice(pos, end).trim();
    const m = /^(`{3,}|~{3,})/.exec(line);
    if (m) {
      if (!fence) fence = m[1]!;
      else if (line.startsWith(fence)) fence = '';
    } else if (!fence && line === '' && end - start >= min && nl !== -1) {
      out.push(src.slice(start, end));
      start = end;
    }
    pos = end;
  }
  if (start < src.length || out.length === 0) out.push(src.slice(start));
  return out;
}
