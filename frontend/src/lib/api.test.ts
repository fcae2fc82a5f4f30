import { describe, expect, it, vi } from 'vitest';
import { BackendError, createBackend, httpBackend, toBackendError, wailsBackend, type Backend } from './api';
import { APIMethods, type API } from './generated';

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
    const win = { location: { href: 'http://127.0.0.1:7788/?token=abc&x=1#h' }, sessionStorage: storage, history: { state: null, replaceState } };
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
    const fetchFn = vi.fn().mockResolvedValue(new Response(JSON.stringify({ code: 'not_found', message: 'No such session.' }), { status: 404 }));
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
  expect(toBackendError({ code: 'conflict', message: 'A turn is already running.' })).toEqual(new BackendError('conflict', 'A turn is already running.'));
});

// ---- the whole API (app/api.go) ----

type Case = [keyof Backend, unknown[], keyof API, unknown[]];
const page = { limit: 0, cursor: '' };
const cases: Case[] = [
  ['listSessions', [], 'ListSessions', [page]],
  ['listSessions', [{ limit: 10, cursor: 'c' }], 'ListSessions', [{ limit: 10, cursor: 'c' }]],
  ['createSession', [{ title: 'T' }], 'CreateSession', [{ title: 'T' }]],
  ['getSession', ['s1'], 'GetSession', ['s1']],
  ['renameSession', ['s1', 'New'], 'RenameSession', ['s1', 'New']],
  ['updateSession', [{ id: 's1' }], 'UpdateSession', [{ id: 's1' }]],
  ['deleteSession', ['s1'], 'DeleteSession', ['s1']],
  ['searchSessions', ['q', 20], 'SearchSessions', ['q', 20]],
  ['sendMessage', [{ session_id: 's1', message: 'hi' }], 'SendMessage', [{ session_id: 's1', message: 'hi' }]],
  ['stopTurn', ['t1'], 'StopTurn', ['t1']],
  ['getTurn', ['t1', true], 'GetTurn', ['t1', true]],
  ['listTurns', ['s1', { cursor: '40' }], 'ListTurns', ['s1', { limit: 0, cursor: '40' }]],
  ['eventsAfter', ['t1', 7], 'EventsAfter', ['t1', 7]],
  ['replayTurn', ['t1'], 'ReplayTurn', ['t1']],
  ['rerunTurn', ['t1', { model: 'm' }], 'RerunTurn', ['t1', { model: 'm' }]],
  ['exportSession', ['s1', 'md'], 'ExportSession', ['s1', 'md']],
  ['importSession', ['{}'], 'ImportSession', ['{}']],
  ['listProviders', [], 'ListProviders', []],
  ['presets', [], 'Presets', []],
  ['saveProvider', [{ provider: { name: 'p' }, api_key: 'k' }], 'SaveProvider', [{ provider: { name: 'p' }, api_key: 'k' }]],
  ['deleteProvider', ['p'], 'DeleteProvider', ['p']],
  ['testProvider', [{ provider: { name: 'p' } }], 'TestProvider', [{ provider: { name: 'p' } }]],
  ['detectLocal', [], 'DetectLocal', []],
  ['listWorkflows', [], 'ListWorkflows', []],
  ['validateWorkflow', ['w.yaml', 'kind: chat'], 'ValidateWorkflow', ['w.yaml', 'kind: chat']],
  ['pendingApprovals', [], 'PendingApprovals', []],
  ['answerApproval', [{ call_id: 'c', answer: 'deny' }], 'AnswerApproval', [{ call_id: 'c', answer: 'deny' }]],
  ['getSettings', [], 'GetSettings', []],
  ['saveSettings', [{ theme: 'dark' }], 'SaveSettings', [{ theme: 'dark' }]],
  ['status', [], 'Status', []],
  ['version', [], 'Version', []],
  ['uiReady', [{ version_shown: 'v1', regions: [], width: 1, height: 1 }], 'UIReady', [{ version_shown: 'v1', regions: [], width: 1, height: 1 }]],
];

describe('every API method', () => {
  it('is reached from the Backend, and nothing else is', () => {
    expect(new Set(cases.map((c) => c[2]))).toEqual(new Set(APIMethods));
  });

  it.each(cases)('%s calls window.go.app.API.%s', async (method, args, goName, goArgs) => {
    const fn = vi.fn().mockResolvedValue({ ok: true });
    const b = wailsBackend({ [goName]: fn });
    await (b[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    expect(fn).toHaveBeenCalledWith(...goArgs);
  });

  it.each(cases)('%s posts to /api/call/%s', async (method, args, goName, goArgs) => {
    const fetchFn = vi.fn().mockResolvedValue(new Response('null', { status: 200 }));
    const b = httpBackend(new URL('http://x/?token=t'), fetchFn, memoryStorage());
    await (b[method] as (...a: unknown[]) => Promise<unknown>)(...args);
    const [path, init] = fetchFn.mock.calls[0] as [string, RequestInit];
    expect(path).toBe(`/api/call/${goName}`);
    expect(JSON.parse(init.body as string)).toEqual(goArgs);
  });

  it('says which method a stale binding lacks', async () => {
    await expect(wailsBackend({}).listSessions()).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('ListSessions') });
  });

  it('maps a rejected Wails call to a BackendError', async () => {
    const b = wailsBackend({ StopTurn: vi.fn().mockRejectedValue({ code: 'not_found', message: 'No such turn.' }) });
    await expect(b.stopTurn('x')).rejects.toEqual(new BackendError('not_found', 'No such turn.'));
  });
});

describe('subscribe in the window', () => {
  it('listens to both Wails events and stops listening', () => {
    const handlers = new Map<string, (...d: unknown[]) => void>();
    const offs = { events: vi.fn(), approval: vi.fn() };
    const rt = {
      EventsOn: vi.fn((name: string, fn: (...d: unknown[]) => void) => {
        handlers.set(name, fn);
        return name === 'agentdeck:events' ? offs.events : offs.approval;
      }),
    };
    const b = wailsBackend({}, rt);
    const onBatch = vi.fn();
    const onApproval = vi.fn();
    const stop = b.subscribe(onBatch, onApproval);
    handlers.get('agentdeck:events')!([{ seq: 1, first_seq: 1 }]);
    handlers.get('agentdeck:events')!(null);
    handlers.get('agentdeck:approval')!({ call_id: 'c' });
    expect(onBatch).toHaveBeenNthCalledWith(1, [{ seq: 1, first_seq: 1 }]);
    expect(onBatch).toHaveBeenNthCalledWith(2, []);
    expect(onApproval).toHaveBeenCalledWith({ call_id: 'c' });
    stop();
    expect(offs.events).toHaveBeenCalled();
    expect(offs.approval).toHaveBeenCalled();
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

  it('reads batches and approvals from /api/events with the token, and resyncs after a drop', () => {
    const b = httpBackend(new URL('http://x/?token=a b'), vi.fn(), memoryStorage(), (u) => new FakeStream(u));
    const onBatch = vi.fn();
    const onApproval = vi.fn();
    const onResync = vi.fn();
    const stop = b.subscribe(onBatch, onApproval, onResync);
    const es = FakeStream.last;
    expect(es.url).toBe('/api/events?token=a%20b');
    es.send({ kind: 'events', batch: [{ seq: 2, first_seq: 1 }] });
    es.send({ kind: 'approval', approval: { call_id: 'c' } });
    es.send('not json');
    expect(onBatch).toHaveBeenCalledWith([{ seq: 2, first_seq: 1 }]);
    expect(onApproval).toHaveBeenCalledWith({ call_id: 'c' });
    es.onopen?.(new Event('open'));
    expect(onResync).not.toHaveBeenCalled();
    es.onerror?.(new Event('error'));
    es.onopen?.(new Event('open'));
    expect(onResync).toHaveBeenCalledOnce();
    stop();
    expect(es.closed).toBe(true);
  });
});

describe('turns changed', () => {
  it('reaches the window from the Wails event', () => {
    const handlers = new Map<string, (...d: unknown[]) => void>();
    const rt = { EventsOn: vi.fn((name: string, fn: (...d: unknown[]) => void) => void handlers.set(name, fn)) };
    const onTurnsChanged = vi.fn();
    wailsBackend({}, rt).subscribe(vi.fn(), vi.fn(), undefined, onTurnsChanged);
    const changes = [{ turn_id: 't1', session_id: 's1', state: 'interrupted' }];
    handlers.get('agentdeck:turns_changed')!(changes);
    handlers.get('agentdeck:turns_changed')!(null);
    expect(onTurnsChanged).toHaveBeenCalledTimes(1);
    expect(onTurnsChanged).toHaveBeenCalledWith(changes);
  });

  it('reaches a browser as a turns_changed message on the event stream', () => {
    let stream: { onmessage: ((e: MessageEvent) => void) | null } = { onmessage: null };
    const open = (_u: string) => {
      const es = { onmessage: null, onerror: null, onopen: null, close: vi.fn() };
      stream = es;
      return es;
    };
    const onBatch = vi.fn();
    const onTurnsChanged = vi.fn();
    httpBackend(new URL('http://x/?token=t'), vi.fn(), memoryStorage(), open).subscribe(onBatch, vi.fn(), undefined, onTurnsChanged);
    const turns = [{ turn_id: 't1', session_id: 's1', state: 'interrupted' }];
    stream.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ kind: 'turns_changed', turns }) }));
    stream.onmessage?.(new MessageEvent('message', { data: JSON.stringify({ kind: 'turns_changed', turns: null }) }));
    expect(onTurnsChanged).toHaveBeenCalledTimes(1);
    expect(onTurnsChanged).toHaveBeenCalledWith(turns);
    expect(onBatch).not.toHaveBeenCalled();
  });
});
