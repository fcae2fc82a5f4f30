import { describe, expect, it, vi } from 'vitest';
import { BackendError, createBackend, httpBackend, toBackendError } from './api';

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
    const win = { go: { app: { Service: { Version, Status: vi.fn(), UIReady: vi.fn() } } }, location: { href: 'wails://wails/' } };
    const b = createBackend(win as never);
    expect(b.kind).toBe('wails');
    await expect(b.version()).resolves.toMatchObject({ version: '1.2.3' });
    expect(Version).toHaveBeenCalledOnce();
  });

  it('falls back to HTTP in a browser', () => {
    const win = { location: { href: 'http://127.0.0.1:7788/?token=abc' }, sessionStorage: memoryStorage() };
    expect(createBackend(win as never, vi.fn()).kind).toBe('http');
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
