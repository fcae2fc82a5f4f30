// Small browser helpers: the clipboard, file paths from drops, downloads.

/** Copies text; falls back to a hidden textarea where the API is missing. */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard?.writeText) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall back below
  }
  const ta = document.createElement('textarea');
  ta.value = text;
  ta.setAttribute('readonly', '');
  ta.style.position = 'fixed';
  ta.style.opacity = '0';
  document.body.appendChild(ta);
  ta.select();
  let ok: boolean;
  try {
    ok = document.execCommand('copy');
  } catch {
    ok = false;
  }
  ta.remove();
  return ok;
}

/**
 * Local paths from dropped text: a text/uri-list of file:// URLs (what file
 * managers put on a drag) or absolute paths one per line.
 */
export function pathsFromText(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (/^file:\/\//i.test(line)) {
      try {
        const u = new URL(line);
        out.push(decodeURIComponent(u.pathname).replace(/^\/([A-Za-z]:\/)/, '$1'));
      } catch {
        // not a URL after all
      }
    } else if (line.startsWith('/') || /^[A-Za-z]:[\\/]/.test(line) || line.startsWith('~/')) {
      out.push(line);
    }
  }
  return out;
}

/**
 * What a drop brings to attach: the paths the webview tells (a file
 * manager's file:// list, or File.path) and the files it names no path for,
 * which are uploaded. local says whether a path the page sees is one on the
 * backend's machine: in the window it is; a browser may run elsewhere, so
 * there every file is uploaded and no path is taken.
 */
export function filesFromDrop(dt: DataTransfer | null, local: boolean): { paths: string[]; files: File[] } {
  if (!dt) return { paths: [], files: [] };
  const files = Array.from(dt.files ?? []);
  if (!local) return { paths: [], files };
  let listed = pathsFromText(dt.getData('text/uri-list') || '');
  if (listed.length === 0) listed = pathsFromText(dt.getData('text/plain') || '');
  const named = filesWithPaths(files, true);
  // A file manager's list names every dropped file: then none needs an upload.
  return { paths: [...new Set([...listed, ...named.paths])], files: listed.length ? [] : named.files };
}

/** Splits files into the paths the webview tells (File.path, where local) and the files to upload. */
export function filesWithPaths(files: readonly File[], local: boolean): { paths: string[]; files: File[] } {
  const paths: string[] = [];
  const rest: File[] = [];
  for (const f of files) {
    const p = local ? (f as File & { path?: string }).path : undefined;
    if (p) paths.push(p);
    else rest.push(f);
  }
  return { paths, files: rest };
}

/** Starts a download of text as a file (works in browsers; the window may ignore it). */
export function downloadText(filename: string, content: string, type = 'text/plain'): string {
  const url = URL.createObjectURL(new Blob([content], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  return url;
}
