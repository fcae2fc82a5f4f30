// The evaluation viewer, as a person reads a run: each cell's answer
// (markup as text), a long answer opened with Show more (which reads the
// rest of it), cells filtered by outcome, model and assertion with the
// count of what is left, the answers searched with the match marked,
// the cases sorted, and the filters cleared; by keyboard where a person
// would; in light and dark (screenshots browser-evalview-*.png).
import { expect, openApp, shot, test, uid } from './fixtures';
import { openRun, runEval, viewSuite } from './evalview';

test('the evaluation viewer shows answers, opens one, filters, searches and sorts', async ({ page }) => {
  test.setTimeout(180_000);
  const name = `view-${uid()}`;
  runEval(viewSuite(name));

  await openApp(page);
  const matrix = await openRun(page, name);
  const rows = matrix.locator('tbody tr');
  const row = (id: string) => matrix.locator(`tr[data-case="${id}"]`);
  const count = matrix.getByTestId('eval-count');
  await expect(rows).toHaveCount(4);
  await expect(count).toHaveText('8 cells');

  // Answers, as text: who answered, and the xss answer's markup inert.
  await expect(row('whoami').getByTestId('eval-answer')).toHaveText([
    /Answered by fakellm as smoke-model/,
    /Answered by second as second-model/,
  ]);
  await expect(row('think').getByTestId('eval-answer').first()).toHaveText('The answer is 42.');
  await expect(row('xss').getByTestId('eval-answer').first()).toContainText('<img src=x onerror=alert(1)>');
  await expect(matrix.locator('img, script, iframe, svg circle')).toHaveCount(0);

  // The tall answer is clamped; Show more, from the keyboard, reads it whole.
  const tall = row('tall').getByTestId('eval-result').first();
  const toggle = tall.getByTestId('eval-answer-toggle');
  await expect(toggle).toHaveAccessibleName(/^Show more of the answer of tall, fake\/smoke-model/);
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(tall.getByTestId('eval-answer')).not.toContainText('Tall answer 47 ends.');
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(tall.getByTestId('eval-answer')).toContainText('Tall answer 47 ends.');
  await expect(tall.getByTestId('eval-answer')).toContainText('<p>tall 47 line 120</p>');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shot(page, `browser-evalview-open-${scheme}.png`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');

  // Outcome, then model: the count says what is left, and of what.
  await matrix.getByRole('combobox', { name: 'Outcome' }).selectOption('failed');
  await expect(rows).toHaveCount(3);
  await expect(count).toContainText('5 of 8 cells · outcome failed');
  await matrix.getByRole('combobox', { name: 'Model' }).selectOption('second/second-model');
  await expect(count).toContainText('3 of 8 cells · outcome failed · model second/second-model');
  await expect(matrix.locator('thead th.model')).toHaveText(['second/second-model']);
  await expect(rows).toHaveCount(3);
  await matrix.getByRole('button', { name: 'Clear filters' }).click();
  await expect(count).toHaveText('8 cells');
  await expect(rows).toHaveCount(4);

  // An assertion that failed.
  await matrix.getByRole('combobox', { name: 'Assertion' }).selectOption('failed:max_tokens');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toHaveAttribute('data-case', 'tall');
  await matrix.getByRole('button', { name: 'Clear filters' }).click();

  // Search, any case, with the match marked.
  await matrix.getByRole('searchbox', { name: 'Answer contains' }).fill('ANSWERED BY');
  await expect(rows).toHaveCount(1);
  await expect(count).toContainText('2 of 8 cells · answer has “ANSWERED BY”');
  await expect(matrix.locator('[data-testid="eval-answer"] mark')).toHaveText(['Answered by', 'Answered by']);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shot(page, `browser-evalview-search-${scheme}.png`);
  }
  await matrix.getByRole('button', { name: 'Clear filters' }).click();

  // Sorted by tokens, most first: the tall answer's case leads.
  await matrix.getByRole('combobox', { name: 'Sort cases by' }).selectOption('tokens');
  await expect(rows.first()).toHaveAttribute('data-case', 'tall');
  await matrix.getByRole('combobox', { name: 'Sort cases by' }).selectOption('case');
  await expect(rows.first()).toHaveAttribute('data-case', 'whoami');

  // A thumb on a cell is its turn's review; the judge passed both of
  // think's cells, so it agrees with an up and not with a down.
  const figure = page.getByTestId('eval-agreement');
  await expect(figure).toHaveText('Rate the cells the judge judged (2) to see how often it agrees with you.');
  const up = row('think').getByRole('button', { name: 'Good answer: think, fake/smoke-model' });
  await up.focus();
  await page.keyboard.press('Enter');
  await expect(up).toHaveAttribute('aria-pressed', 'true');
  await expect(figure).toHaveText('The judge agrees with you on 1 of 1 rated cell (100%).');
  await row('think').getByRole('button', { name: 'Bad answer: think, second/second-model' }).click();
  await expect(figure).toHaveText('The judge agrees with you on 1 of 2 rated cells (50%).');
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await shot(page, `browser-evalview-rated-${scheme}.png`);
  }
  // Read back after a reload: the thumbs were stored.
  await page.reload();
  await expect(page.getByTestId('eval-agreement')).toHaveText('The judge agrees with you on 1 of 2 rated cells (50%).');
  await expect(
    page
      .getByTestId('eval-matrix')
      .locator('tr[data-case="think"]')
      .getByRole('button', { name: /^Good answer: think, fake/ }),
  ).toHaveAttribute('aria-pressed', 'true');
});
