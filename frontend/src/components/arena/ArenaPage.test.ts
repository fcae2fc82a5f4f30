// The Arena page: reached from the sidebar and by its address, it shows
// the board fitted from the votes (rank, target, score with its interval
// in words, votes, W/L/T), how it was fitted, and the recent votes, each
// opening its session; a project filter asks the backend for that
// project's board; with no votes it says how to get some.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import { seedArena } from '../../lib/fake-arena';

afterEach(() => {
  window.location.hash = '';
});

async function openArena() {
  await fireEvent.click(await screen.findByRole('button', { name: 'Arena' }));
  return screen.findByTestId('arena-page');
}

describe('Arena page', () => {
  it('shows the board fitted from the votes and the recent votes', async () => {
    const b = new FakeBackend();
    seedArena(b, new Date());
    render(App, { backend: b });
    const page = await openArena();
    expect(window.location.hash).toBe('#/arena');
    expect(screen.getByRole('button', { name: 'Arena' }).getAttribute('aria-current')).toBe('page');

    const board = await within(page).findByRole('table', { name: 'Leaderboard' });
    const rows = within(board).getAllByTestId('arena-row');
    expect(rows).toHaveLength(4);
    // The seeded votes make gpt-4o-mini the best: it won 4 of its 5, lost none.
    expect(within(rows[0]!).getByRole('rowheader').textContent).toBe('gpt-4o-mini · openai');
    expect(rows[0]!.textContent).toMatch(/^1/);
    expect(rows[0]!.textContent).toMatch(/95%: \d+–\d+/);
    expect(rows[0]!.textContent).toContain('4 / 0 / 1');
    const scores = rows.map((r) => Number(r.querySelector('.score strong')?.textContent));
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    expect(within(page).getByTestId('arena-method').textContent).toContain('Bradley–Terry');
    expect(page.textContent).toContain('10 votes');

    const votes = within(page).getByRole('table', { name: 'Recent votes' });
    const first = within(votes).getAllByTestId('arena-vote')[0]!;
    expect(first.textContent).toContain('Won: qwen2.5-coder:7b · ollama');
    expect(first.textContent).toContain('llama3.2:3b · ollama');
    expect(votes.textContent).toContain('Neither ran the code.');
    expect(votes.textContent).toContain('Both bad');

    // A session's link opens it.
    await fireEvent.click(within(first).getByRole('link', { name: /Arena: which model/ }));
    await waitFor(() => expect(window.location.hash).toMatch(/^#\/s\//));
    expect(screen.queryByTestId('arena-page')).toBeNull();
  });

  it('says how to get votes when there are none', async () => {
    const b = new FakeBackend();
    render(App, { backend: b });
    const page = await openArena();
    const empty = await within(page).findByTestId('arena-empty');
    expect(empty.textContent).toContain('No votes in all projects yet');
    expect(empty.textContent).toContain('side by side');
    expect(empty.textContent).toContain('Blind');
    expect(within(page).queryByRole('table')).toBeNull();
  });

  it('asks for the board and the votes of the project picked', async () => {
    const b = new FakeBackend();
    seedArena(b, new Date());
    const p = await b.createProject({ name: 'Research' } as never);
    window.location.hash = '#/arena';
    render(App, { backend: b });
    const page = await screen.findByTestId('arena-page');
    await within(page).findByRole('table', { name: 'Leaderboard' });
    expect(b.calls.filter((c) => c.method === 'arenaBoard').at(-1)?.args[0]).toEqual({ project: undefined });

    const filter = within(page).getByRole('combobox', { name: 'Project' }) as HTMLSelectElement;
    await waitFor(() => expect(within(filter).getByRole('option', { name: 'Research' })).toBeTruthy());
    expect([...filter.options].map((o) => o.textContent)).toEqual(['All projects', 'Research', 'No project']);
    await fireEvent.change(filter, { target: { value: p.id } });
    await waitFor(() => expect(b.calls.filter((c) => c.method === 'arenaBoard').at(-1)?.args[0]).toEqual({ project: p.id }));
    expect(b.calls.filter((c) => c.method === 'listVotes').at(-1)?.args[0]).toMatchObject({ project: p.id });
    // Research has no votes: the page says so, naming it.
    expect((await within(page).findByTestId('arena-empty')).textContent).toContain('No votes in Research yet');

    await fireEvent.change(filter, { target: { value: '-' } });
    await waitFor(() => expect(b.calls.filter((c) => c.method === 'arenaBoard').at(-1)?.args[0]).toEqual({ project: '-' }));
    await within(page).findByRole('table', { name: 'Leaderboard' });
  });

  it('shows the votes when the board cannot be read', async () => {
    const b = new FakeBackend();
    seedArena(b, new Date());
    b.arenaBoard = async () => {
      throw new Error('the board broke');
    };
    window.location.hash = '#/arena';
    render(App, { backend: b });
    const page = await screen.findByTestId('arena-page');
    expect((await within(page).findByRole('alert')).textContent).toContain('The leaderboard could not be read');
    await within(page).findByRole('table', { name: 'Recent votes' });
  });
});
