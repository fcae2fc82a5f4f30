import { tick } from 'svelte';
import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';
import App from './App.svelte';
import type { Backend } from './lib/api';
import { BackendError } from './lib/api';
import { FakeBackend } from './lib/fake';

function fakeBackend(over: Partial<Backend> = {}): Backend {
  const fake = new FakeBackend();
  fake.version_ = '0.9.1';
  Object.assign(fake, { uiReady: vi.fn().mockResolvedValue(undefined) }, over);
  return fake;
}

describe('App shell', () => {
  it('shows the version the backend reports and tells the backend it is ready', async () => {
    const backend = fakeBackend();
    render(App, { backend });
    await waitFor(() => expect(screen.getByTestId('version').textContent).toBe('v0.9.1'));
    await waitFor(() => expect(backend.uiReady).toHaveBeenCalledOnce());
    const report = (backend.uiReady as ReturnType<typeof vi.fn>).mock.calls[0]![0];
    expect(report.version_shown).toBe('v0.9.1');
  });

  it('asks for the session list before anything else and is ready only once the list is read', async () => {
    const fake = new FakeBackend();
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const list = fake.listSessions.bind(fake);
    const status = fake.status.bind(fake);
    const backend = fakeBackend({
      listSessions: vi.fn(async (p) => {
        order.push('listSessions');
        await held;
        return list(p);
      }),
      status: vi.fn(async () => {
        order.push('status');
        return status();
      }),
    });
    render(App, { backend });
    expect(order[0]).toBe('listSessions');
    await waitFor(() => expect(backend.status).toHaveBeenCalled());
    await tick();
    expect(backend.uiReady).not.toHaveBeenCalled();
    release();
    await waitFor(() => expect(backend.uiReady).toHaveBeenCalledOnce());
  });

  it('shows why history is unavailable when the database failed to open', async () => {
    const backend = fakeBackend({
      status: vi.fn().mockResolvedValue({
        version: '1',
        db_path: '/x',
        schema_version: 0,
        db_error: { code: 'unavailable', message: '/x is not an Agentdeck database or is damaged' },
      }),
    });
    render(App, { backend });
    await waitFor(() =>
      expect(screen.getAllByRole('alert').some((a) => a.textContent?.includes('is not an Agentdeck database'))).toBe(true),
    );
  });

  it('shows a backend that cannot be reached', async () => {
    const backend = fakeBackend({
      status: vi.fn().mockRejectedValue(new BackendError('unavailable', 'Cannot reach the Agentdeck server.')),
    });
    render(App, { backend });
    await waitFor(() => expect(screen.getAllByRole('alert').some((a) => a.textContent?.includes('Cannot reach'))).toBe(true));
  });
});
