// The shell over the fake backend: sessions, search, rename, delete,
// onboarding, keyboard, links.
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../App.svelte';
import { demoBackend } from '../lib/fake';

async function openApp(opts: { fresh?: boolean } = {}) {
  const backend = demoBackend(opts);
  const r = render(App, { backend });
  await waitFor(() => expect(backend.calls.some((c) => c.method === 'uiReady')).toBe(true));
  return { backend, ...r };
}

describe('shell', () => {
  it('lists sessions by date and opens one with its turns', async () => {
    const { backend } = await openApp();
    const nav = await screen.findByRole('navigation', { name: 'Session list' });
    await waitFor(() =>
      expect(
        within(nav)
          .getAllByRole('heading')
          .map((h) => h.textContent),
      ).toEqual(['Today', 'Yesterday', 'Previous 7 days', 'Older']),
    );
    await fireEvent.click(within(nav).getByRole('button', { name: 'Quarterly sales review' }));
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Quarterly sales review'));
    const turn = await screen.findByRole('article', { name: 'Turn 1' });
    await waitFor(() => expect(turn.textContent).toContain('Here is what I found.'));
    expect(await within(turn).findByText('read_table')).toBeTruthy();
    expect(backend.calls.some((c) => c.method === 'getTurn' && c.args[1] === true)).toBe(true);
  });

  it('renames a session inline', async () => {
    const { backend } = await openApp();
    await fireEvent.click(await screen.findByRole('button', { name: 'Rename Quarterly sales review' }));
    const input = screen.getByRole('textbox', { name: 'Session title' });
    await fireEvent.input(input, { target: { value: 'Q3 sales' } });
    await fireEvent.keyDown(input, { key: 'Enter' });
    await waitFor(() => expect(backend.sessions.find((s) => s.title === 'Q3 sales')).toBeTruthy());
    expect(await screen.findByRole('button', { name: 'Q3 sales' })).toBeTruthy();
  });

  it('deletes a session only after confirmation', async () => {
    const { backend } = await openApp();
    const before = backend.sessions.length;
    await fireEvent.click(await screen.findByRole('button', { name: 'Delete Plan a data migration' }));
    const dialog = screen.getByRole('dialog', { name: 'Delete this session?' });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(backend.sessions.length).toBe(before);
    await fireEvent.click(screen.getByRole('button', { name: 'Delete Plan a data migration' }));
    await fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(backend.sessions.length).toBe(before - 1));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Plan a data migration' })).toBeNull());
  });

  it('searches across sessions and marks the matches', async () => {
    await openApp();
    const search = screen.getByRole('searchbox', { name: 'Search sessions' });
    await fireEvent.input(search, { target: { value: 'regions' } });
    await waitFor(() => expect(document.querySelectorAll('mark').length).toBeGreaterThan(0));
    expect(document.querySelector('mark')!.textContent?.toLowerCase()).toBe('regions');
  });

  it('focuses search with Ctrl+K', async () => {
    await openApp();
    await fireEvent.keyDown(window, { key: 'k', ctrlKey: true });
    expect(document.activeElement?.id).toBe('session-search');
  });

  it('shows onboarding on first run and keeps the composer on screen', async () => {
    await openApp({ fresh: true });
    expect(await screen.findByRole('heading', { name: 'Welcome to Agentdeck' })).toBeTruthy();
    expect(document.querySelector('[data-region="composer"]')).toBeTruthy();
    const add = await screen.findByRole('button', { name: 'Add' });
    await fireEvent.click(add);
    await waitFor(() => expect(screen.queryByRole('heading', { name: 'Welcome to Agentdeck' })).toBeNull());
    expect(screen.getByRole('heading', { name: 'What should your agent do?' })).toBeTruthy();
  });

  it('opens links outside the app, never in the window', async () => {
    const { backend } = await openApp();
    const open = vi.spyOn(backend, 'openURL');
    await fireEvent.click(await screen.findByRole('button', { name: 'Explore the regions' }));
    const link = await screen.findByRole('link', { name: 'the docs' }, { timeout: 3000 });
    expect(link.getAttribute('target')).toBe('_blank');
    const ev = new MouseEvent('click', { bubbles: true, cancelable: true });
    link.dispatchEvent(ev);
    expect(ev.defaultPrevented).toBe(true);
    expect(open).toHaveBeenCalledWith('https://example.com/docs');
  });
});
