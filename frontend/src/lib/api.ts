// The only module that talks to the backend.
//
// In the desktop window the Wails runtime injects window.go with the bound
// Go methods; in a browser (agentdeck serve) the same methods are reached
// over HTTP. Both sit behind the Backend interface, so components never know
// which one they have. The types come from the Go structs (generated into
// ./wailsjs by `make bindings`).
import type { app, buildinfo } from './wailsjs/go/models';
import type * as ServiceBinding from './wailsjs/go/app/Service';

export type VersionInfo = buildinfo.Info;
export type Status = app.Status;
export type ReadyReport = app.ReadyReport;

export interface Backend {
  readonly kind: 'wails' | 'http';
  version(): Promise<VersionInfo>;
  status(): Promise<Status>;
  uiReady(report: ReadyReport): Promise<void>;
}

/** An error from the backend: a stable code and a message for people. */
export class BackendError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'BackendError';
  }
}

type Binding = typeof ServiceBinding;

interface WailsWindow {
  go?: { app?: { Service?: Binding } };
}

/** Picks the Wails bindings when present, else HTTP against the page's origin. */
export function createBackend(win: Window & WailsWindow = window, fetchFn: typeof fetch = fetch.bind(window)): Backend {
  const binding = win.go?.app?.Service;
  if (binding) return wailsBackend(binding);
  return httpBackend(new URL(win.location.href), fetchFn, win.sessionStorage);
}

export function wailsBackend(b: Binding): Backend {
  return {
    kind: 'wails',
    version: () => guard(b.Version()),
    status: () => guard(b.Status()),
    uiReady: (r) => guard(b.UIReady(r)),
  };
}

const tokenKey = 'agentdeck.token';

export function httpBackend(url: URL, fetchFn: typeof fetch, storage: Storage): Backend {
  // The server prints a URL with ?token=...; keep it for reloads and take it
  // out of the address bar so it does not end up in screenshots or history.
  const fromURL = url.searchParams.get('token');
  if (fromURL) storage.setItem(tokenKey, fromURL);
  const token = storage.getItem(tokenKey) ?? '';

  async function call<T>(method: string, ...args: unknown[]): Promise<T> {
    let res: Response;
    try {
      res = await fetchFn(`/api/call/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(args),
      });
    } catch {
      throw new BackendError('unavailable', 'Cannot reach the Agentdeck server. Is `agentdeck serve` still running?');
    }
    const body: unknown = await res.json().catch(() => null);
    if (!res.ok) {
      const e = body as { code?: string; message?: string } | null;
      throw new BackendError(e?.code ?? 'internal', e?.message ?? `The server answered ${res.status}.`);
    }
    return body as T;
  }

  return {
    kind: 'http',
    version: () => call('Version'),
    status: () => call('Status'),
    uiReady: (r) => call('UIReady', r),
  };
}

// Wails rejects a promise with what the Go side's ErrorFormatter returned:
// {code, message} for our errors; older paths may give the text, possibly JSON.
async function guard<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    throw toBackendError(err);
  }
}

export function toBackendError(err: unknown): BackendError {
  if (err instanceof BackendError) return err;
  if (isCoded(err)) return new BackendError(err.code, err.message);
  const text = err instanceof Error ? err.message : String(err);
  try {
    const parsed = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof parsed.code === 'string' && typeof parsed.message === 'string') {
      return new BackendError(parsed.code, parsed.message);
    }
  } catch {
    // not JSON: fall through
  }
  return new BackendError('internal', text || 'Something went wrong inside Agentdeck.');
}

function isCoded(v: unknown): v is { code: string; message: string } {
  return typeof v === 'object' && v !== null && typeof (v as { code?: unknown }).code === 'string' && typeof (v as { message?: unknown }).message === 'string';
}
