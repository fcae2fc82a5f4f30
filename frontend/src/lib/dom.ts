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
  let ok = false;
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

/** Paths of dropped files where the webview tells them (some do via File.path). */
export function pathsFromDrop(dt: DataTransfer | null): { paths: string[]; unnamed: string[] } {
  if (!dt) return { paths: [], unnamed: [] };
  const paths = new Set<string>(pathsFromText(dt.getData('text/uri-list') || ''));
  if (paths.size === 0) for (const p of pathsFromText(dt.getData('text/plain') || '')) paths.add(p);
  const unnamed: string[] = [];
  for (const f of Array.from(dt.files ?? [])) {
    const p = (f as File & { path?: string }).path;
    if (p) paths.add(p);
    else if (paths.size === 0) unnamed.push(f.name);
  }
  return { paths: [...paths], unnamed };
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
