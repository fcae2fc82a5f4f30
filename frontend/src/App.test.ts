import { describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';
import App from './App.svelte';
import type { Backend } from './lib/api';
import { BackendError } from './lib/api';

function fakeBackend(over: Partial<Backend> = {}): Backend {
  return {
    kind: 'http',
    version: vi.fn().mockResolvedValue({ version: '0.9.1', commit: '', go_version: '' }),
    status: vi.fn().mockResolvedValue({ version: '0.9.1', db_path: '/tmp/a.db', schema_version: 1 }),
    uiReady: vi.fn().mockResolvedValue(undefined),
    ...over,
  };
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

  it('shows why history is unavailable when the database failed to open', async () => {
    const backend = fakeBackend({
      status: vi.fn().mockResolvedValue({
        version: '1', db_path: '/x', schema_version: 0,
        db_error: { code: 'unavailable', message: '/x is not an Agentdeck database or is damaged' },
      }),
    });
    render(App, { backend });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('is not an Agentdeck database');
  });

  it('shows a backend that cannot be reached', async () => {
    const backend = fakeBackend({ status: vi.fn().mockRejectedValue(new BackendError('unavailable', 'Cannot reach the Agentdeck server.')) });
    render(App, { backend });
    expect((await screen.findByRole('alert')).textContent).toContain('Cannot reach');
  });
});
