// From review to tests through the served app: two turns rated down
// through the HTTP API (SaveReview: one "looped", one "missing chart"),
// made into a suite (SuiteFromReviewed, what "Make a suite from these"
// calls), which the Evaluations page lists and runs: each case starts from
// its recorded turn, and the labels became its assertions (not stopping at
// a limit passes; a chart the whoami answer never draws fails). Made again
// into the same file, nothing is added, and the answer says why.
import type { Page } from '@playwright/test';
import { callAPI, E2E_URL, expect, test, uid } from './fixtures';
import { runSuite } from './evalsuite';

interface TurnRef {
  turn_id: string;
}

async function sendAndEnd(page: Page, sessionId: string, message: string): Promise<string> {
  const sent = await callAPI<TurnRef>(page, 'SendMessage', { session_id: sessionId, message });
  await expect
    .poll(async () => (await callAPI<{ state: string }>(page, 'GetTurn', sent.turn_id, false)).state, {
      message: `turn of ${message} ends`,
      timeout: 30_000,
    })
    .toBe('completed');
  return sent.turn_id;
}

test('a suite made from two turns rated down runs from the recorded turns', async ({ page }) => {
  const id = uid();
  await page.goto(E2E_URL);
  const session = await callAPI<{ id: string }>(page, 'CreateSession', { title: `Reviewed ${id}` });
  const looped = await sendAndEnd(page, session.id, `whoami looped ${id}`);
  const uncharted = await sendAndEnd(page, session.id, `whoami uncharted ${id}`);
  const review = { id: '', step: '', thumb: -1, score: 0, note: '' };
  await callAPI(page, 'SaveReview', { ...review, turn_id: looped, labels: ['looped'] });
  await callAPI(page, 'SaveReview', { ...review, turn_id: uncharted, labels: ['missing chart'] });

  const filter = { session_id: session.id, rated: 'down' };
  const made = await callAPI<{ suite: { file: string; cases: number }; added: number; skipped: number }>(page, 'SuiteFromReviewed', {
    filter,
    name: `Rated down ${id}`,
  });
  expect(made).toMatchObject({ added: 2, skipped: 0, suite: { file: `rated-down-${id}.yaml`, cases: 2 } });
  await expect(callAPI(page, 'SuiteFromReviewed', { filter, file: made.suite.file })).rejects.toThrow(/nothing to add/);

  await page.getByRole('button', { name: 'Evaluations' }).click();
  await runSuite(page, made.suite.file);
  const run = page.getByTestId('eval-run');
  await expect(run.getByTestId('eval-run-state')).toHaveText('Completed', { timeout: 60_000 });
  await expect(run.getByTestId('eval-run-total')).toContainText('1/2');
  const matrix = page.getByTestId('eval-matrix');
  const tail = (turnId: string) => turnId.replace(/[^a-z0-9]/g, '').slice(-8);
  await expect(matrix.locator(`tr[data-case="whoami-looped-${id}-${tail(looped)}"] .cell`)).toHaveText([/Passed/]);
  await expect(matrix.locator(`tr[data-case="whoami-uncharted-${id}-${tail(uncharted)}"] .cell`)).toHaveText([/Failed/]);
});
