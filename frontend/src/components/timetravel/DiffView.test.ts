// The "What changed" view: opened by its address (a reload), it names
// both turns and the From step, lists the aligned steps with a gap where a
// side has none, folds identical steps until shown, marks the word diff
// with <del>/<ins> that say what they are, adds up each side, and moves
// between rows with j and k. A turn's ⋯ menu offers the other version.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import { rerunPair } from '../../lib/fake-diff-fixture';

afterEach(() => {
  window.location.hash = '';
});

function backendWithPair() {
  const f = new FakeBackend();
  const { a, aEvents, b, bEvents } = rerunPair();
  f.turns.set(a.id, a);
  f.turns.set(b.id, b);
  f.events.set(a.id, aEvents);
  f.events.set(b.id, bEvents);
  return f;
}

describe('What changed', () => {
  it('shows the re-run beside its original from the edited step', async () => {
    window.location.hash = '#/diff/ta/tb';
    render(App, { backend: backendWithPair() });
    const page = await screen.findByTestId('diff-page');
    await within(page).findByRole('table');
    expect(within(page).getByRole('heading', { level: 1 }).textContent).toBe('What changed');
    expect(within(page).getByTestId('diff-side-a').textContent).toBe('#1 · small-model');
    expect(within(page).getByTestId('diff-side-b').textContent).toBe('#2 · small-model');
    expect(within(page).getByTestId('diff-from').textContent).toBe('Tool result 1: read_table');
    expect(
      within(page)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Original · #1 · small-model', 'Re-run · #2 · small-model']);

    const rows = within(page).getAllByTestId('diff-row');
    expect(rows.map((r) => r.dataset.kind)).toEqual(['tool', 'call', 'tool']);
    // The edited tool result: its badge, and the change marked on each side.
    const [tool1, call2, tool2] = rows;
    expect(tool1!.textContent).toContain('edited');
    const del = tool1!.querySelector('td[data-side="a"] del')!;
    const ins = tool1!.querySelector('td[data-side="b"] ins')!;
    expect(del.textContent).toBe('[deleted: 3]');
    expect(ins.textContent).toBe('[inserted: 5]');
    expect(tool1!.querySelector('td[data-side="a"] ins')).toBeNull();
    expect(
      within(call2!)
        .getAllByTestId('diff-text')
        .map((t) => t.textContent),
    ).toEqual(['There are [deleted: 3] rows in the table.', 'There are [inserted: 5] rows in the table.']);
    expect(call2!.querySelector('td[data-side="b"]')!.textContent).toContain('210 in · 22 out tokens');
    expect(call2!.querySelector('td[data-side="b"]')!.textContent).toContain('1.50 s');
    // The chart's tool result is a gap on the re-run's side.
    expect(within(tool2!).getByTestId('diff-gap').textContent).toContain('No such step in this turn');
    expect(within(tool2!).getByTestId('diff-cell').textContent).toContain('chart ok');

    // The two identical calls are one line until shown.
    const folded = within(page).getByRole('button', { name: '2 identical steps — show' });
    await fireEvent.click(folded);
    await waitFor(() => expect(within(page).getAllByTestId('diff-row')).toHaveLength(5));
    expect(document.activeElement).toBe(within(page).getAllByTestId('diff-row')[3]);

    const totals = within(page).getByTestId('diff-totals');
    expect(totals.textContent).toContain('3 model calls · 2 tool results · 440 tokens (400 in · 40 out)');
    expect(within(page).getByTestId('diff-delta').textContent).toBe('+212 tokens, −1 tool result, −520 ms');
  });

  it('moves between rows with j and k, one Tab stop for the table', async () => {
    window.location.hash = '#/diff/ta/tb';
    render(App, { backend: backendWithPair() });
    const page = await screen.findByTestId('diff-page');
    await within(page).findByRole('table');
    const rows = within(page).getAllByTestId('diff-row');
    expect(rows.map((r) => r.tabIndex)).toEqual([0, -1, -1]);
    rows[0]!.focus();
    await fireEvent.keyDown(rows[0]!, { key: 'j' });
    await waitFor(() => expect(document.activeElement).toBe(rows[1]));
    await fireEvent.keyDown(rows[1]!, { key: 'ArrowDown' });
    await waitFor(() => expect(document.activeElement).toBe(rows[2]));
    expect(rows.map((r) => r.tabIndex)).toEqual([-1, -1, 0]);
    await fireEvent.keyDown(rows[2]!, { key: 'k' });
    await waitFor(() => expect(document.activeElement).toBe(rows[1]));
    await fireEvent.keyDown(rows[1]!, { key: 'Home' });
    await waitFor(() => expect(document.activeElement).toBe(rows[0]));
  });

  it('renders model text as text', async () => {
    const f = backendWithPair();
    const ev = f.events.get('tb')!.find((e) => e.type === 'tool_result')!;
    (ev.data as { output: string }).output = '<img src=x onerror="window.pwned=1"> rows: 5';
    window.location.hash = '#/diff/ta/tb';
    render(App, { backend: f });
    const page = await screen.findByTestId('diff-page');
    await within(page).findByRole('table');
    expect(page.querySelector('img')).toBeNull();
    expect(within(page).getAllByTestId('diff-row')[0]!.textContent).toContain('<img src=x');
  });

  it('says why when a turn is gone', async () => {
    window.location.hash = '#/diff/ta/nope';
    render(App, { backend: backendWithPair() });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('The two turns could not be compared: There is no turn nope');
  });
});
