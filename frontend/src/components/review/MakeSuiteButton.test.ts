// "Make a suite from these" in the review queue's header: the turns the
// filter picks become a new suite (named from the filter, to edit) or are
// added to a suite picked from the list; the line left after counts the
// cases and opens the Evaluations page; a refusal is shown in the dialog.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { FakeBackend } from '../../lib/fake';
import type { ReviewFilter } from '../../lib/types';
import Harness from './makesuitetest.svelte';

function withRatedTurns() {
  const b = new FakeBackend();
  const s = b.addSession('Files', new Date(Date.now() - 60_000));
  const bad = b.addTurn(s.id, 'What does notes.txt say?');
  const worse = b.addTurn(s.id, 'And todo.txt?');
  b.addTurn(s.id, 'Thanks!');
  b.reviews.save({
    id: '',
    turn_id: bad.id,
    step: '',
    thumb: -1,
    score: 0,
    labels: ['should use read_file'],
    note: 'Refused.',
    created_at: '',
    updated_at: '',
  });
  b.reviews.save({
    id: '',
    turn_id: worse.id,
    step: 'call1',
    thumb: -1,
    score: 0,
    labels: [],
    note: 'Asked twice.',
    created_at: '',
    updated_at: '',
  });
  b.evalSuites_ = [{ file: 'files.yaml', path: '/data/evals/files.yaml', name: 'files', cases: 2, models: ['local/qwen3'], repeat: 1 }];
  return b;
}

async function openDialog() {
  await fireEvent.click(screen.getByRole('button', { name: 'Make a suite from these' }));
  const dialog = await screen.findByRole('dialog', { name: 'Make a suite from these turns' });
  await within(dialog).findByRole('combobox', { name: 'Suite' });
  return dialog;
}

describe('Make a suite from these', () => {
  const down: ReviewFilter = { rated: 'down', label: '' };

  it('makes a new suite of the turns rated down, then opens the Evaluations page', async () => {
    const b = withRatedTurns();
    render(Harness, { backend: b, filter: down });
    const dialog = await openDialog();
    const name = within(dialog).getByRole('textbox', { name: 'Name of the new suite' }) as HTMLInputElement;
    expect(name.value).toBe('Rated down');
    await fireEvent.input(name, { target: { value: 'Refusals' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Make the suite' }));
    const status = await screen.findByRole('status');
    expect(status.textContent).toContain('Refusals: 2 cases made (2 in all)');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(b.calls.find((c) => c.method === 'suiteFromReviewed')?.args[0]).toEqual({ filter: down, name: 'Refusals' });
    expect(b.evalSuites_.map((s) => s.file)).toEqual(['files.yaml', 'refusals.yaml']);

    await fireEvent.click(within(status).getByRole('button', { name: 'Open in Evaluations' }));
    await waitFor(() => expect(screen.getByTestId('view').textContent).toBe('evals'));
  });

  it('adds to a suite picked from the list, and says when there is nothing to add', async () => {
    const b = withRatedTurns();
    render(Harness, { backend: b, filter: down });
    let dialog = await openDialog();
    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Suite' }), { target: { value: 'files.yaml' } });
    expect(within(dialog).queryByRole('textbox', { name: 'Name of the new suite' })).toBeNull();
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Make the suite' }));
    expect((await screen.findByRole('status')).textContent).toContain('files: 2 cases made (4 in all)');

    dialog = await openDialog();
    await fireEvent.change(within(dialog).getByRole('combobox', { name: 'Suite' }), { target: { value: 'files.yaml' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Make the suite' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain(
      'files.yaml already has a case of every turn picked (2): nothing to add.',
    );
  });

  it('says when no turn matches, and keeps the dialog open', async () => {
    const b = withRatedTurns();
    render(Harness, { backend: b, filter: { rated: 'up' } });
    const dialog = await openDialog();
    expect((within(dialog).getByRole('textbox', { name: 'Name of the new suite' }) as HTMLInputElement).value).toBe('Rated up');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Make the suite' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('No turns match the filter');
    expect(b.evalSuites_).toHaveLength(1);
  });
});
