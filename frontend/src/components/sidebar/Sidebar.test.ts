// The shell with the fake backend: the sidebar marks running sessions, a
// search hit opens its turn marked, and the hash a reload keeps opens the
// same session and turn.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import type { FakeBackend } from '../../lib/fake';
import { shellBackend } from './sidebartest';

const at = new Date(2025, 5, 18, 9);

const backend = shellBackend;

function turnOf(b: FakeBackend, sessionId: string, seq: number) {
  return [...b.turns.values()].find((t) => t.session_id === sessionId && t.seq === seq)!;
}

afterEach(() => {
  history.replaceState(null, '', '/');
  localStorage.clear();
});

describe('sidebar and address', () => {
  it('marks a session whose turn is running with a word, not only a colour', async () => {
    const b = backend();
    const busy = b.addSession('Busy one', at);
    b.addSession('Idle one', at, 1);
    b.addForeignTurn(busy.id, 'Still going');
    render(App, { backend: b });
    const list = await screen.findByRole('navigation', { name: 'Session list' });
    expect(await within(list).findByRole('button', { name: 'Busy one running' })).toBeTruthy();
    expect(within(list).getByRole('button', { name: 'Idle one' })).toBeTruthy();
  });

  it('moves the Tab stop to the session the address opens, away from the row focused before', async () => {
    const b = backend();
    const first = b.addSession('First', at, 1);
    const second = b.addSession('Second', new Date(2025, 5, 18, 10), 1);
    render(App, { backend: b });
    const list = await screen.findByRole('navigation', { name: 'Session list' });
    const one = await within(list).findByRole('button', { name: 'First' });
    const two = within(list).getByRole('button', { name: 'Second' });
    await fireEvent.click(one);
    one.focus();
    await waitFor(() => expect(location.hash).toBe(`#/s/${first.id}`));
    expect(one.tabIndex).toBe(0);
    expect(two.tabIndex).toBe(-1);
    history.pushState(null, '', `#/s/${second.id}`);
    window.dispatchEvent(new PopStateEvent('popstate'));
    await waitFor(() => expect(two.getAttribute('aria-current')).toBe('page'));
    expect(two.tabIndex).toBe(0);
    expect(one.tabIndex).toBe(-1);
  });

  it('marks the search hits of a fork with a badge outside the shortened title', async () => {
    const b = backend();
    const s = b.addSession('A very long session title about the regional sales of the last quarter', at, 1);
    turnOf(b, s.id, 1).final_text = 'The quixotic answer.';
    const fork = b.addSession(`${s.title} (fork)`, new Date(2025, 5, 18, 10), 1);
    fork.forked_from_session = s.id;
    turnOf(b, fork.id, 1).final_text = 'The quixotic answer.';
    render(App, { backend: b });
    const box = await screen.findByRole('searchbox', { name: 'Search sessions' });
    await fireEvent.input(box, { target: { value: 'quixotic' } });
    const hits = await screen.findAllByRole('button', { name: /quixotic/ }, { timeout: 3000 });
    expect(hits).toHaveLength(2);
    const forked = hits.filter((h) => h.querySelector('.fork'));
    expect(forked).toHaveLength(1);
    // The badge is its own element, beside the title the ellipsis shortens, not inside it.
    const title = forked[0]!.querySelector('.title')!;
    expect(title.textContent).toBe(s.title);
    expect(title.contains(forked[0]!.querySelector('.fork'))).toBe(false);
    expect(forked[0]!.querySelector('.fork')!.textContent).toBe('fork');
    expect(forked[0]!.textContent).toMatch(/fork/);
  });

  it('opens a search hit at its turn, marked with what matched, and writes it in the address', async () => {
    const b = backend();
    const s = b.addSession('Squares', at, 80);
    b.addSession('Later', new Date(2025, 5, 18, 10), 1);
    const target = turnOf(b, s.id, 12);
    target.final_text = 'Twelve squared is a gross of quixotic things.';
    render(App, { backend: b });
    const box = await screen.findByRole('searchbox', { name: 'Search sessions' });
    await fireEvent.input(box, { target: { value: 'quixotic' } });
    const hit = await screen.findByRole('button', { name: /Squares.*quixotic/s }, { timeout: 3000 });
    await fireEvent.click(hit);
    await waitFor(() => expect(location.hash).toBe(`#/s/${s.id}/t/${target.id}`));
    const marked = await waitFor(() => {
      const el = document.querySelector<HTMLElement>('[data-found]');
      if (!el) throw new Error('no marked turn');
      return el;
    });
    expect(within(marked).getByRole('article', { name: 'Turn 12' })).toBeTruthy();
    expect(marked.textContent).toContain('Search match: “quixotic”');
  });

  it('finds an artifact and a code run by their text, and says which each hit is', async () => {
    const b = backend();
    const s = b.addSession('Garden', at, 2);
    const base = { session_id: s.id, stage_id: '', parent_id: '', at: at.toISOString(), phase: 'thinking' as const, checkpoint: false };
    const [one, two] = [turnOf(b, s.id, 1), turnOf(b, s.id, 2)];
    b.events.set(one.id, [
      {
        ...base,
        id: 'a1',
        turn_id: one.id,
        seq: 1,
        type: 'artifact',
        data: { key: 'html', title: 'Planner', kind: 'html', content: '<p>A quixotic pergola</p>', source: 'block' },
      },
    ]);
    b.events.set(two.id, [
      {
        ...base,
        id: 'c1',
        turn_id: two.id,
        seq: 1,
        type: 'code_run',
        phase: 'acting',
        data: { code: 'print(1)', output: 'quixotic output', steps: 3, duration_ms: 1 },
      },
    ]);
    render(App, { backend: b });
    const box = await screen.findByRole('searchbox', { name: 'Search sessions' });
    await fireEvent.input(box, { target: { value: 'quixotic' } });
    expect(await screen.findByRole('button', { name: /Artifact · #1.*quixotic pergola/s }, { timeout: 3000 })).toBeTruthy();
    expect(screen.getByRole('button', { name: /Code run · #2.*quixotic output/s })).toBeTruthy();
  });

  it('opens the session and turn the address names after a reload', async () => {
    const b = backend();
    const s = b.addSession('Squares', at, 80);
    b.addSession('Later', new Date(2025, 5, 18, 10), 1);
    const target = turnOf(b, s.id, 7);
    history.replaceState(null, '', `/#/s/${s.id}/t/${target.id}`);
    render(App, { backend: b });
    expect(await screen.findByRole('heading', { level: 1, name: 'Squares' })).toBeTruthy();
    const marked = await waitFor(() => {
      const el = document.querySelector<HTMLElement>('[data-found]');
      if (!el) throw new Error('no marked turn');
      return el;
    });
    expect(within(marked).getByRole('article', { name: 'Turn 7' })).toBeTruthy();
    expect(marked.textContent).toContain('Linked turn');
  });

  it('says the session the address names is gone and shows a new session', async () => {
    const b = backend();
    b.addSession('Squares', at, 2);
    history.replaceState(null, '', '/#/s/s404');
    render(App, { backend: b });
    const alert = await screen.findByText('There is no session s404. It may have been deleted.');
    expect(alert.getAttribute('role')).toBe('alert');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('New session');
    expect(location.hash).toBe('');
  });

  it('lists evaluation sessions, marked "eval", only when asked, and remembers it after a reload', async () => {
    const b = backend();
    b.addSession('A chat', at, 1);
    b.addSession('geography · capital · openai/gpt-4o-mini #1', new Date(2025, 5, 18, 10), 1).kind = 'eval';
    const first = render(App, { backend: b });
    const list = await screen.findByRole('navigation', { name: 'Session list' });
    await within(list).findByRole('button', { name: 'A chat' });
    expect(within(list).queryByRole('button', { name: /geography/ })).toBeNull();
    expect(b.calls.filter((c) => c.method === 'listSessions').every((c) => !(c.args[0] as { eval?: boolean }).eval)).toBe(true);

    const toggle = screen.getByRole('button', { name: 'Show evaluation sessions' });
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    expect(screen.queryByTestId('showing-eval')).toBeNull();
    await fireEvent.click(toggle);
    const row = await within(list).findByRole('button', { name: 'geography · capital · openai/gpt-4o-mini #1 eval' });
    expect(row.querySelector('.badge')?.textContent).toBe('eval');
    expect(b.calls.filter((c) => c.method === 'listSessions').at(-1)!.args[0]).toMatchObject({ eval: true });
    // A chat has no badge.
    expect(within(list).getByRole('button', { name: 'A chat' }).querySelector('.badge')).toBeNull();

    first.unmount();
    render(App, { backend: b });
    const again = await screen.findByRole('navigation', { name: 'Session list' });
    expect(await within(again).findByRole('button', { name: /geography.* eval$/ })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Show evaluation sessions' }).getAttribute('aria-pressed')).toBe('true');
    expect(screen.getByTestId('showing-eval').textContent).toBe('Evaluation sessions are listed too.');

    await fireEvent.click(screen.getByRole('button', { name: 'Show evaluation sessions' }));
    await waitFor(() => expect(within(again).queryByRole('button', { name: /geography/ })).toBeNull());
    expect(within(again).getByRole('button', { name: 'A chat' })).toBeTruthy();
  });
});
