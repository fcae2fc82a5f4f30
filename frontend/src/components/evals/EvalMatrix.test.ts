// The matrix as a person reads it: each cell's answer (as text, a few
// lines until Show more opens it, which reads the rest of a long one),
// cells filtered by outcome, model, assertion and answer text with the
// match marked, cases sorted, the count of cells left, and Clear.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import { seedEvals } from '../../lib/fake-evals';
import Harness from './evalmatrixtest.svelte';

afterEach(() => {
  history.replaceState(null, '', '/');
});

async function openMatrix() {
  const b = new FakeBackend();
  b.addSession('A chat', new Date(), 1);
  seedEvals(b, new Date(2026, 0, 15, 12));
  render(App, { backend: b });
  await fireEvent.click(await screen.findByRole('button', { name: 'Evaluations' }));
  const page = await screen.findByTestId('evals-page');
  const matrix = await within(page).findByTestId('eval-matrix');
  return { b, matrix };
}

const rows = (matrix: HTMLElement) => [...matrix.querySelectorAll<HTMLElement>('tbody tr')].map((r) => r.dataset.case);
const count = (matrix: HTMLElement) => within(matrix).getByTestId('eval-count').textContent!.replace(/\s+/g, ' ').trim();
const results = (matrix: HTMLElement, caseId: string) => [
  ...matrix.querySelectorAll<HTMLElement>(`tr[data-case="${caseId}"] [data-testid="eval-result"]`),
];

describe('the matrix of answers', () => {
  it("shows each cell's answer as text, never as markup", async () => {
    const { matrix } = await openMatrix();
    const capital = results(matrix, 'capital');
    expect(capital.map((c) => within(c).queryByTestId('eval-answer')?.textContent?.trim())).toEqual([
      'Paris',
      'Paris',
      '<img src=x onerror=alert(1)> paris',
      'Paris',
    ]);
    expect(matrix.querySelector('img')).toBeNull();
    // An error has no answer to show; its reason is still there on focus.
    expect(within(results(matrix, 'berlin')[2]!).queryByTestId('eval-answer')).toBeNull();
    expect(count(matrix)).toBe('13 cells');
    expect(within(matrix).queryByRole('button', { name: 'Clear filters' })).toBeNull();
  });

  it('opens a long answer with Show more, reading the rest of it, and closes it again', async () => {
    const { b, matrix } = await openMatrix();
    const cell = results(matrix, 'follow-up')[0]!;
    const answer = within(cell).getByTestId('eval-answer');
    expect(answer.classList.contains('clamped')).toBe(true);
    expect(answer.textContent).not.toContain('Step 60');
    const toggle = within(cell).getByRole('button', { name: /^Show more/ });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(toggle.getAttribute('aria-controls')).toBe(answer.id);
    await fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    await waitFor(() => expect(answer.textContent).toContain('Step 60'));
    expect(answer.classList.contains('clamped')).toBe(false);
    expect(b.calls.filter((c) => c.method === 'evalAnswer')).toHaveLength(1);
    expect(toggle.textContent).toContain('Show less');
    await fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(answer.classList.contains('clamped')).toBe(true);
    // A short answer has nothing to open.
    expect(within(results(matrix, 'capital')[0]!).queryByRole('button', { name: /^Show more/ })).toBeNull();
  });

  it('filters by outcome and model, says how many cells are left, and clears', async () => {
    const { matrix } = await openMatrix();
    const outcome = within(matrix).getByRole('combobox', { name: 'Outcome' });
    await fireEvent.change(outcome, { target: { value: 'failed' } });
    expect(rows(matrix)).toEqual(['capital', 'follow-up']);
    expect(count(matrix)).toMatch(/^2 of 13 cells · outcome failed/);
    // The case stays whole; its cells that did not fail are faint, without their answers.
    expect(results(matrix, 'capital').map((c) => c.classList.contains('dim'))).toEqual([true, true, false, true]);

    await fireEvent.change(within(matrix).getByRole('combobox', { name: 'Model' }), { target: { value: 'ollama/llama3.2' } });
    expect(rows(matrix)).toEqual(['capital']);
    expect(count(matrix)).toMatch(/^1 of 13 cells · outcome failed · model ollama\/llama3.2/);
    expect([...matrix.querySelectorAll('thead th.model')].map((th) => th.textContent!.trim())).toEqual(['ollama/llama3.2']);

    await fireEvent.change(outcome, { target: { value: 'cancelled' } });
    expect(within(matrix).getByTestId('eval-none').textContent).toContain('No cell matches');

    await fireEvent.click(within(matrix).getByRole('button', { name: 'Clear filters' }));
    expect(rows(matrix)).toEqual(['capital', 'berlin', 'json-answer', 'follow-up']);
    expect(count(matrix)).toBe('13 cells');
    expect((outcome as HTMLSelectElement).value).toBe('');
  });

  it('filters by an assertion that failed or passed', async () => {
    const { matrix } = await openMatrix();
    const assertion = within(matrix).getByRole('combobox', { name: 'Assertion' });
    expect([...(assertion as HTMLSelectElement).options].map((o) => o.textContent)).toContain('judge failed');
    await fireEvent.change(assertion, { target: { value: 'failed:judge' } });
    expect(rows(matrix)).toEqual(['follow-up']);
    expect(count(matrix)).toMatch(/^1 of 13 cells · judge failed/);
    await fireEvent.change(assertion, { target: { value: 'passed:contains' } });
    expect(rows(matrix)).toEqual(['capital', 'berlin']);
  });

  it('searches the answers, any case, and marks the match', async () => {
    const { matrix } = await openMatrix();
    await fireEvent.input(within(matrix).getByRole('searchbox', { name: 'Answer contains' }), { target: { value: 'PRIME' } });
    expect(rows(matrix)).toEqual(['follow-up']);
    expect(count(matrix)).toMatch(/^2 of 13 cells · answer has “PRIME”/);
    const marks = [...matrix.querySelectorAll('[data-testid="eval-answer"] mark')].map((m) => m.textContent);
    expect(marks.length).toBeGreaterThan(1);
    expect(marks.every((m) => m!.toLowerCase() === 'prime')).toBe(true);
  });

  it('sorts the cases by score, latency and tokens', async () => {
    const { matrix } = await openMatrix();
    const sort = within(matrix).getByRole('combobox', { name: 'Sort cases by' });
    await fireEvent.change(sort, { target: { value: 'score-asc' } });
    expect(rows(matrix)).toEqual(['berlin', 'follow-up', 'capital', 'json-answer']);
    await fireEvent.change(sort, { target: { value: 'latency' } });
    expect(rows(matrix)[0]).toBe('follow-up');
    await fireEvent.change(sort, { target: { value: 'case' } });
    expect(rows(matrix)).toEqual(['capital', 'berlin', 'json-answer', 'follow-up']);
  });
});

describe('the rating slot', () => {
  it("renders what the page gives in each cell's rating slot, with the cell's result", async () => {
    const b = new FakeBackend();
    const ids = seedEvals(b, new Date(2026, 0, 15, 12));
    const report = await b.evalReport(ids.newest);
    const { container } = render(Harness, { backend: b, report });
    const thumbs = [...container.querySelectorAll<HTMLElement>('.thumbs')];
    // One a result: 13, less the one not run (an empty cell has no slot).
    expect(thumbs).toHaveLength(13);
    expect(thumbs[0]!.dataset.turn).toBe(report.results![0]!.turn_id);
  });
});

describe('rating cells', () => {
  it("saves a thumb as the cell's turn review, keeps what the review said, and shows the judge's agreement", async () => {
    const { b, matrix } = await openMatrix();
    const page = screen.getByTestId('evals-page');
    const figure = await within(page).findByTestId('eval-agreement');
    expect(figure.textContent).toBe('Rate the cells the judge judged (2) to see how often it agrees with you.');

    // The judge passed repeat 1 and failed repeat 2 of follow-up on gpt-4o-mini.
    const [first, second] = results(matrix, 'follow-up');
    const turnOf = (i: number) => b.evalReports_['r-newest']!.results!.filter((r) => r.case_id === 'follow-up')[i]!.turn_id!;
    await b.saveReview({
      id: '',
      turn_id: turnOf(1),
      step: '',
      thumb: 0,
      score: 4,
      labels: ['wrong prime'],
      note: 'says 15',
      created_at: '',
      updated_at: '',
    });

    const up = within(first!).getByRole('button', { name: 'Good answer: follow-up, openai/gpt-4o-mini, repeat 1' });
    await fireEvent.click(up);
    await waitFor(() => expect(up.getAttribute('aria-pressed')).toBe('true'));
    await waitFor(() => expect(figure.textContent).toBe('The judge agrees with you on 1 of 1 rated cell (100%).'));

    await fireEvent.click(within(second!).getByRole('button', { name: /^Good answer/ }));
    await waitFor(() => expect(figure.textContent).toBe('The judge agrees with you on 1 of 2 rated cells (50%).'));
    // The review is the turn's: the score, labels and note it had are kept.
    const [saved] = await b.reviewsFor([turnOf(1)]);
    expect(saved).toMatchObject({ thumb: 1, score: 4, labels: ['wrong prime'], note: 'says 15', step: '' });

    // Pressed again, the thumb is taken back.
    await fireEvent.click(up);
    await waitFor(() => expect(up.getAttribute('aria-pressed')).toBe('false'));
    await waitFor(() => expect(figure.textContent).toBe('The judge agrees with you on 0 of 1 rated cell (0%).'));
  });

  it('says when a rating could not be saved', async () => {
    const { b, matrix } = await openMatrix();
    b.saveReview = async () => {
      throw new Error('the database is read-only');
    };
    await fireEvent.click(within(results(matrix, 'capital')[0]!).getByRole('button', { name: /^Bad answer/ }));
    expect((await screen.findByRole('alert')).textContent).toContain(
      'Your rating could not be saved: the database is read-only. Try again.',
    );
  });
});
