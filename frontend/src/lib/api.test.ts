import { describe, expect, it, vi } from 'vitest';
import {
  BackendError,
  createBackend,
  httpBackend,
  toBackendError,
  wailsBackend,
  type Backend,
  type Binding,
  type BusHandlers,
} from './api';
import { APIMethods } from './generated';

function memoryStorage(): Storage {
  const m = new Map<string, string>();
  return {
    get length() {
      return m.size;
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, v),
  };
}

describe('createBackend', () => {
  it('uses the Wails bindings when the runtime injected them', async () => {
    const Version = vi.fn().mockResolvedValue({ version: '1.2.3', commit: '', go_version: '' });
    const win = { go: { app: { API: { Version, Status: vi.fn(), UIReady: vi.fn() } } }, location: { href: 'wails://wails/' } };
    const b = createBackend(win as never);
    expect(b.kind).toBe('wails');
    await expect(b.version()).resolves.toMatchObject({ version: '1.2.3' });
    expect(Version).toHaveBeenCalledOnce();
  });

  it('falls back to HTTP in a browser', () => {
    const win = { location: { href: 'http://127.0.0.1:7788/?token=abc' }, sessionStorage: memoryStorage() };
    expect(createBackend(win as never, vi.fn()).kind).toBe('http');
  });

  it('takes the token out of the address bar', () => {
    const replaceState = vi.fn();
    const storage = memoryStorage();
    const win = {
      location: { href: 'http://127.0.0.1:7788/?token=abc&x=1#h' },
      sessionStorage: storage,
      history: { state: null, replaceState },
    };
    createBackend(win as never, vi.fn());
    expect(replaceState).toHaveBeenCalledWith(null, '', '/?x=1#h');
    expect(storage.getItem('agentdeck.token')).toBe('abc');
  });
});

describe('httpBackend', () => {
  it('sends the token from the URL and remembers it for reloads', async () => {
    const storage = memoryStorage();
    const fetchFn = vi.fn().mockResolvedValue(new Response(JSON.stringify({ version: '9' }), { status: 200 }));
    const b = httpBackend(new URL('http://127.0.0.1:7788/?token=s3cret'), fetchFn, storage);
    await b.version();
    const [path, init] = fetchFn.mock.calls[0] as [string, RequestInit];
    expect(path).toBe('/api/call/Version');
    expect((init.headers as Record<string, string>).Authorization).toBe('Bearer s3cret');

    // A reload without the token in the URL still has it.
    const again = httpBackend(new URL('http://127.0.0.1:7788/'), fetchFn, storage);
    await again.version();
    const [, init2] = fetchFn.mock.calls[1] as [string, RequestInit];
    expect((init2.headers as Record<string, string>).Authorization).toBe('Bearer s3cret');
  });

  it('turns an error reply into a BackendError with the code and message', async () => {
    const fetchFn = vi
      .fn()
      .mockResolvedValue(new Response(JSON.stringify({ code: 'not_found', message: 'No such session.' }), { status: 404 }));
    const b = httpBackend(new URL('http://x/'), fetchFn, memoryStorage());
    await expect(b.status()).rejects.toEqual(new BackendError('not_found', 'No such session.'));
  });

  it('says what to do when the server is gone', async () => {
    const fetchFn = vi.fn().mockRejectedValue(new TypeError('Failed to fetch'));
    const b = httpBackend(new URL('http://x/'), fetchFn, memoryStorage());
    await expect(b.status()).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('agentdeck serve') });
  });
});

describe('toBackendError', () => {
  it.each([
    ['JSON from a Go apperr', '{"code":"invalid","message":"Pick a model."}', 'invalid', 'Pick a model.'],
    ['plain text', 'boom', 'internal', 'boom'],
    ['JSON of another shape', '{"x":1}', 'internal', '{"x":1}'],
  ])('%s', (_name, text, code, message) => {
    const e = toBackendError(new Error(text));
    expect(e.code).toBe(code);
    expect(e.message).toBe(message);
  });
});

it('accepts the {code, message} object the Go ErrorFormatter sends', () => {
  expect(toBackendError({ code: 'conflict', message: 'A turn is already running.' })).toEqual(
    new BackendError('conflict', 'A turn is already running.'),
  );
});

// ---- the contract with the Go API (app/api.go) ----
//
// What api.ts sends is typed by the generated API: a call of a method the
// Go API lacks, or with arguments it does not take, does not compile. What
// is left to check is which methods it reaches. Each Backend method that
// goes to Go is called, in the window and in a browser, with placeholder
// arguments, and what reached Go is recorded.

/** The Backend methods that are not calls of the Go API. */
const local = new Set<string>(['kind', 'subscribe', 'openURL', 'onFileDrop']);

type Reached = Array<{ goName: string; args: unknown[] }>;

/**
 * The Go calls each Backend method makes when called with placeholder
 * arguments (one per parameter it declares). make builds the Backend over a
 * transport that hands each Go call to record.
 */
async function reached(make: (record: (goName: string, args: unknown[]) => void) => Backend): Promise<Map<string, Reached>> {
  const out = new Map<string, Reached>();
  let current: Reached = [];
  const b = make((goName, args) => current.push({ goName, args }));
  for (const method of Object.keys(b).filter((k) => !local.has(k))) {
    current = [];
    out.set(method, current);
    const fn = (b as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method]!;
    await fn(...Array.from({ length: fn.length }, (_, i) => `${method}:${i}`));
  }
  return out;
}

const inTheWindow = (record: (goName: string, args: unknown[]) => void) =>
  wailsBackend(
    new Proxy({} as Binding, {
      get:
        (_t, goName) =>
        async (...args: unknown[]) => (record(String(goName), args), {}),
    }),
  );

const inABrowser = (record: (goName: string, args: unknown[]) => void) =>
  httpBackend(
    new URL('http://x/?token=t'),
    (async (path: string, init: RequestInit) => {
      record(path.replace('/api/call/', ''), JSON.parse(init.body as string) as unknown[]);
      return new Response('{}', { status: 200 });
    }) as typeof fetch,
    memoryStorage(),
  );

it('api.ts calls exactly the Go API, one method each, the same way in the window and in a browser', async () => {
  const window = await reached(inTheWindow);
  const browser = await reached(inABrowser);
  expect([...browser.keys()]).toEqual([...window.keys()]);
  for (const [method, calls] of window) {
    expect(calls, `the Go calls of ${method}`).toHaveLength(1);
    expect(browser.get(method), `the Go call of ${method} in a browser`).toEqual(JSON.parse(JSON.stringify(calls)));
  }
  const goNames = [...window.values()].flat().map((c) => c.goName);
  expect(goNames.sort(), 'the Go methods api.ts calls').toEqual([...APIMethods].sort());
});

describe('calls', () => {
  it('send the first page when none is given', async () => {
    const fn = vi.fn().mockResolvedValue({ sessions: [] });
    const b = wailsBackend({ ListSessions: fn, ListTurns: fn });
    await b.listSessions();
    await b.listTurns('s1', { cursor: '40' });
    expect(fn.mock.calls).toEqual([[{ limit: 0, cursor: '' }], ['s1', { limit: 0, cursor: '40' }]]);
  });

  it('ask for evaluation sessions only when the sidebar shows them', async () => {
    const fn = vi.fn().mockResolvedValue({ sessions: [] });
    const b = wailsBackend({ ListSessions: fn });
    await b.listSessions({ limit: 100, eval: true });
    await b.listSessions({ limit: 100, eval: false });
    expect(fn.mock.calls).toEqual([[{ limit: 100, cursor: '', eval: true }], [{ limit: 100, cursor: '' }]]);
  });

  it('list every evaluation run when no suite is named, and none as an empty list', async () => {
    const fn = vi.fn().mockResolvedValue(null);
    const b = wailsBackend({ EvalRuns: fn });
    await expect(b.evalRuns()).resolves.toEqual([]);
    expect(fn.mock.calls).toEqual([['']]);
  });

  it('resolve to nothing when Go answers Done', async () => {
    const b = wailsBackend({ RenameSession: vi.fn().mockResolvedValue({}) });
    await expect(b.renameSession('s1', 'New')).resolves.toBeUndefined();
  });

  it('say which method a stale binding lacks', async () => {
    await expect(wailsBackend({}).listSessions()).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('ListSessions'),
    });
  });

  it('map a rejected Wails call to a BackendError', async () => {
    const b = wailsBackend({ StopTurn: vi.fn().mockRejectedValue({ code: 'not_found', message: 'No such turn.' }) });
    await expect(b.stopTurn('x')).rejects.toEqual(new BackendError('not_found', 'No such turn.'));
  });

  it('send an upload as its name and its base64 in a browser', async () => {
    const fetchFn = vi
      .fn()
      .mockResolvedValue(new Response(JSON.stringify({ path: '/d/uploads/x/a.csv', name: 'a.csv', size: 4 }), { status: 200 }));
    const b = httpBackend(new URL('http://x/?token=t'), fetchFn, memoryStorage());
    await expect(b.uploadAttachment('a.csv', 'YSwxCg==')).resolves.toEqual({ path: '/d/uploads/x/a.csv', name: 'a.csv', size: 4 });
    const [path, init] = fetchFn.mock.calls[0] as [string, RequestInit];
    expect(path).toBe('/api/call/UploadAttachment');
    expect(JSON.parse(init.body as string)).toEqual(['a.csv', 'YSwxCg==']);
  });
});

// The bus's messages as either transport hands them over, and the handler
// call each must make (or none).
const busCases: { name: string; msg: unknown; want?: [keyof BusHandlers, unknown[]] }[] = [
  {
    name: 'a batch of events',
    msg: { kind: 'events', data: [{ seq: 2, first_seq: 1 }] },
    want: ['onEvents', [[{ seq: 2, first_seq: 1 }]]],
  },
  { name: 'a batch that is null', msg: { kind: 'events', data: null }, want: ['onEvents', [[]]] },
  { name: 'an approval', msg: { kind: 'approval', data: { call_id: 'c' } }, want: ['onApproval', [{ call_id: 'c' }]] },
  {
    name: 'turn changes',
    msg: { kind: 'turns_changed', data: [{ turn_id: 't1', session_id: 's1', state: 'interrupted' }] },
    want: ['onTurnsChanged', [[{ turn_id: 't1', session_id: 's1', state: 'interrupted' }]]],
  },
  { name: 'no turn changes', msg: { kind: 'turns_changed', data: null } },
  {
    name: 'evaluation progress',
    msg: { kind: 'eval_progress', data: { run_id: 'r', done: 1 } },
    want: ['onEvalProgress', [{ run_id: 'r', done: 1 }]],
  },
  { name: 'a resync', msg: { kind: 'resync', data: {} }, want: ['onResync', []] },
  {
    name: 'the trace export failing',
    msg: { kind: 'traces', data: { status: { state: 'failing', sent: 0, dropped: 3, content: false, last_error: 'connection refused' } } },
    want: ['onTraces', [{ state: 'failing', sent: 0, dropped: 3, content: false, last_error: 'connection refused' }]],
  },
  { name: 'a kind this page does not know', msg: { kind: 'later', data: {} } },
  { name: 'no kind', msg: { data: [] } },
  { name: 'not a message', msg: 'hello' },
];

function spies() {
  return {
    onEvents: vi.fn(),
    onApproval: vi.fn(),
    onResync: vi.fn(),
    onTurnsChanged: vi.fn(),
    onEvalProgress: vi.fn(),
    onTraces: vi.fn(),
  } satisfies Required<BusHandlers>;
}

function expectOnly(h: ReturnType<typeof spies>, want?: [keyof BusHandlers, unknown[]]) {
  for (const [name, fn] of Object.entries(h)) {
    if (want && name === want[0]) expect(fn, name).toHaveBeenCalledExactlyOnceWith(...want[1]);
    else expect(fn, name).not.toHaveBeenCalled();
  }
}

describe('subscribe in the window', () => {
  function wailsRuntime() {
    const handlers = new Map<string, (...d: unknown[]) => void>();
    const off = vi.fn();
    const rt = {
      EventsOn: vi.fn((name: string, fn: (...d: unknown[]) => void) => {
        handlers.set(name, fn);
        return off;
      }),
    };
    return { rt, handlers, off };
  }

  it.each(busCases)('hands on $name from the one Wails event', ({ msg, want }) => {
    const { rt, handlers } = wailsRuntime();
    const h = spies();
    wailsBackend({}, rt).subscribe(h);
    expect([...handlers.keys()]).toEqual(['agentdeck:bus']);
    handlers.get('agentdeck:bus')!(msg);
    expectOnly(h, want);
  });

  it('needs no handler it has no use for, and stops listening', () => {
    const { rt, handlers, off } = wailsRuntime();
    const stop = wailsBackend({}, rt).subscribe({});
    for (const { msg } of busCases) handlers.get('agentdeck:bus')!(msg);
    stop();
    expect(off).toHaveBeenCalledOnce();
  });

  it('opens links with the system browser, and only web links', () => {
    const BrowserOpenURL = vi.fn();
    const b = wailsBackend({}, { EventsOn: vi.fn(), BrowserOpenURL });
    b.openURL('https://example.com');
    b.openURL('javascript:alert(1)');
    b.openURL('file:///etc/passwd');
    expect(BrowserOpenURL).toHaveBeenCalledTimes(1);
    expect(BrowserOpenURL).toHaveBeenCalledWith('https://example.com');
  });
});

describe('subscribe in a browser', () => {
  class FakeStream {
    static last: FakeStream;
    onmessage: ((e: MessageEvent) => void) | null = null;
    onerror: ((e: Event) => void) | null = null;
    onopen: ((e: Event) => void) | null = null;
    closed = false;
    constructor(readonly url: string) {
      FakeStream.last = this;
    }
    close() {
      this.closed = true;
    }
    send(data: unknown) {
      this.onmessage?.(new MessageEvent('message', { data: typeof data === 'string' ? data : JSON.stringify(data) }));
    }
  }

  it.each(busCases)('hands on $name from the event stream', ({ msg, want }) => {
    const h = spies();
    httpBackend(new URL('http://x/?token=t'), vi.fn(), memoryStorage(), (u) => new FakeStream(u)).subscribe(h);
    FakeStream.last.send(msg);
    expectOnly(h, want);
  });

  it('reads /api/events with the token, skips what is not JSON, resyncs after a drop, and closes', () => {
    const b = httpBackend(new URL('http://x/?token=a b'), vi.fn(), memoryStorage(), (u) => new FakeStream(u));
    const h = spies();
    const stop = b.subscribe(h);
    const es = FakeStream.last;
    expect(es.url).toBe('/api/events?token=a%20b');
    es.send('not json');
    es.onopen?.(new Event('open'));
    expectOnly(h);
    es.onerror?.(new Event('error'));
    es.onopen?.(new Event('open'));
    expectOnly(h, ['onResync', []]);
    stop();
    expect(es.closed).toBe(true);
  });
});
