import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { describe, expect, it } from 'vitest';
import { blankReview } from '../../lib/reviews';
import { openTurn } from '../turn/turntest';

describe('a turn review', () => {
  it('toggles thumbs, scores, takes a label from the completion list by keys, and saves a note on Enter', async () => {
    const { b, turn } = await openTurn();
    const id = [...b.turns.keys()][0]!;
    // A label in use, for the completion.
    b.reviews.save({ ...blankReview(id, 'tool9'), thumb: -1, labels: ['wrong tool', 'slow'] });

    const down = within(turn).getByRole('button', { name: 'Bad: rate turn 1 down' });
    await fireEvent.click(down);
    await waitFor(() => expect(down.getAttribute('aria-pressed')).toBe('true'));
    expect(b.reviews.of([id]).find((r) => r.step === '')?.thumb).toBe(-1);

    await fireEvent.click(within(turn).getByRole('button', { name: 'Review turn 1: score, labels and note' }));
    await fireEvent.click(within(turn).getByRole('button', { name: 'Score 3 of 5' }));
    await waitFor(() => expect(b.reviews.of([id]).find((r) => r.step === '')?.score).toBe(3));

    const labels = within(turn).getByRole('combobox', { name: 'Labels of turn 1' });
    await fireEvent.focus(labels);
    await fireEvent.input(labels, { target: { value: 'wro' } });
    const option = await screen.findByRole('option', { name: /wrong tool/ });
    await fireEvent.keyDown(labels, { key: 'ArrowDown' });
    expect(labels.getAttribute('aria-activedescendant')).toBe(option.id);
    await fireEvent.keyDown(labels, { key: 'Enter' });
    await waitFor(() => expect(b.reviews.of([id]).find((r) => r.step === '')?.labels).toEqual(['wrong tool']));
    // Backspace in the empty field removes the last chip.
    await fireEvent.keyDown(labels, { key: 'Backspace' });
    await waitFor(() => expect(b.reviews.of([id]).find((r) => r.step === '')?.labels ?? []).toEqual([]));

    const note = within(turn).getByRole('textbox', { name: 'Note on turn 1' });
    await fireEvent.input(note, { target: { value: 'too slow' } });
    await fireEvent.keyDown(note, { key: 'Enter' });
    await waitFor(() => expect(b.reviews.of([id]).find((r) => r.step === '')?.note).toBe('too slow'));
    expect(within(turn).getByTestId('review-line').textContent).toBe('3/5 · note');

    // Pressing the thumb again takes it off; the rest stays.
    await fireEvent.click(down);
    await waitFor(() => expect(down.getAttribute('aria-pressed')).toBe('false'));
    expect(b.reviews.of([id]).find((r) => r.step === '')).toMatchObject({ thumb: 0, score: 3, note: 'too slow' });
  });
});
