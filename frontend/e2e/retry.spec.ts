// Retries are visible: fakellm answers a "rate limited" message with a 429
// and Retry-After: 3 the first time and answers its retry, and a "server
// error" message with a 500 every time (the client tries 4 times).
import { expect, finished, newSession, send, shot, test, uid } from './fixtures';

test('a retried 429 shows live, stays in the turn, and is in diagnostics', async ({ page }) => {
  await newSession(page);
  // Live: the note must appear while the turn still runs (its Stop
  // button there). The page records that itself, so a slow test runner
  // cannot miss the 3 s between the note and the answer.
  await page.evaluate(() => {
    const w = window as unknown as { retrySeenLive?: boolean };
    new MutationObserver(() => {
      const note = document.querySelector('[data-testid="retry-note"]');
      if (note && !w.retrySeenLive)
        w.retrySeenLive = [...(note.closest('article')?.querySelectorAll('button') ?? [])].some((b) => b.textContent?.trim() === 'Stop');
    }).observe(document.body, { childList: true, subtree: true });
  });
  const turn = await send(page, `Rate limited ${uid()}`);
  const note = turn.getByTestId('retry-note');
  await expect(note).toContainText('HTTP 429, rate limited · attempt 2 of 4 after 3.0 s');
  // Never "loading": the server answered, with a refusal. (Asked of the
  // turn, not of its waiting line, which is gone once the retry answers.)
  await expect(turn.getByText(/may be loading/)).toHaveCount(0);
  await shot(page, 'retry-live.png');
  await finished(turn);
  await expect(turn.getByText('Answered after waiting out the rate limit.')).toBeVisible();
  await expect(note).toBeVisible();
  expect(
    await page.evaluate(() => (window as unknown as { retrySeenLive?: boolean }).retrySeenLive),
    'the retry note showed while the turn ran',
  ).toBe(true);

  await turn.getByRole('button', { name: 'Diagnostics' }).click();
  const panel = page.getByRole('complementary', { name: 'Diagnostics' });
  await expect(panel.getByRole('list', { name: 'Retries of the model calls' })).toContainText(
    'Model call 1 retried: HTTP 429, rate limited · attempt 2 of 4 after 3.0 s',
  );

  // Read back after a reload, the same.
  await page.reload();
  await expect(page.getByTestId('retry-note')).toContainText('attempt 2 of 4');
});

test('a server that keeps failing says it was retried, with advice for a 500 once', async ({ page }) => {
  await newSession(page);
  const turn = await send(page, `Server error ${uid()}`);
  await finished(turn);
  await expect(turn.getByTestId('retry-note')).toHaveCount(3);
  const card = turn.getByRole('group', { name: 'The model could not answer' });
  await expect(card).toContainText('had an internal error (HTTP 500)');
  await expect(card).toContainText('(Tried 4 times.)');
  // The server's own advice, not "is the server running": it is running.
  await expect(card).not.toContainText('Check that the model server is running');
  // Said once: the card, not again in the stage's line or each retry.
  await expect(turn.getByText("check the server's log", { exact: false })).toHaveCount(1);
  await shot(page, 'retry-failed.png');
});
