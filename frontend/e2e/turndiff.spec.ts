// "What changed": a turn re-run from its answer with the answer edited
// (made through the API, timetravel.ts), then compared with
// its original from the keyboard only: the re-run's ⋯ menu → "Compare with
// version 1" (the re-run is turn #2 of the session), the view's rows
// aligned from the edited step, the edit marked as deleted on the
// original's side and inserted on the re-run's, the totals and their
// differences; a reload shows the same. (Folding identical steps is
// tested in DiffView.test.ts.) Light, dark and narrow
// screenshots; the README's docs/screenshots/time-travel.png is
// copied from timetravel.spec's browser-rerun-diff-light.png (a tool result edited).
import type { Page } from '@playwright/test';
import { E2E_URL, expect, shot, test } from './fixtures';
import { rerunPair, type RerunPair } from './timetravel';

/** What the view shows, read the same way before and after a reload. */
async function checkView(page: Page, pair: RerunPair) {
  const view = page.getByTestId('diff-page');
  await expect(view.getByRole('heading', { level: 1 })).toHaveText('What changed');
  await expect(view.getByTestId('diff-side-a')).toHaveText('#1 · smoke-model');
  await expect(view.getByTestId('diff-side-b')).toHaveText('#2 · smoke-model');
  await expect(view.getByTestId('diff-from')).toHaveText(/^Model call 4/);
  const first = view.getByTestId('diff-row').first();
  await expect(first).toHaveAttribute('data-kind', 'call');
  await expect(first).toContainText('edited');
  // The original's words struck out on its side, the typed ones inserted on the re-run's.
  await expect(first.locator('td[data-side="a"] del').first()).toContainText('[deleted: ');
  await expect(first.locator('td[data-side="a"] ins')).toHaveCount(0);
  await expect(first.locator('td[data-side="b"] ins').first()).toContainText('[inserted: ');
  await expect(first.locator('td[data-side="b"] ins', { hasText: 'figures are missing' })).toHaveCount(1);
  await expect(first.locator('td[data-side="b"] [data-testid="diff-text"]')).toContainText(pair.edited.slice(0, 30));
  // The typed reply cost no model call: every token of the answer is saved.
  await expect(view.getByTestId('diff-totals')).toContainText('1 model call · 0 tool results · 608 tokens (512 in · 96 out)');
  await expect(view.getByTestId('diff-delta')).toHaveText(/^−608 tokens, .*−\S+ m?s$/);
}

test('What changed: a re-run beside its original, reached and read by keyboard, the same after a reload', async ({ page }) => {
  const pair = await rerunPair(page);
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.goto(`${E2E_URL}#/s/${pair.sessionId}`);
  const turn = page.getByRole('article', { name: 'Turn 2', exact: true });
  await expect(turn.getByRole('button', { name: 'Replay' })).toBeVisible();

  // The ⋯ menu of the version shown offers the other version.
  await turn.getByRole('button', { name: 'More actions' }).focus();
  await page.keyboard.press('Enter');
  const menu = turn.getByRole('menu', { name: 'More actions' });
  await expect(menu.getByRole('menuitem').first()).toBeFocused();
  const item = menu.getByRole('menuitem', { name: /^Compare with version \d$/ });
  await expect(item).toHaveCount(1);
  for (let i = 0; i < 8 && !(await item.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('ArrowDown');
  await expect(item).toBeFocused();
  await page.keyboard.press('Enter');

  await expect(page).toHaveURL(new RegExp(`#/diff/${pair.original}/${pair.rerun}$`));
  const view = page.getByTestId('diff-page');
  await expect(view.getByRole('heading', { level: 1 })).toBeFocused();
  await checkView(page, pair);

  // Tab: Back, then the table's one stop, the first changed row.
  await page.keyboard.press('Tab');
  await expect(view.getByRole('button', { name: 'Back' })).toBeFocused();
  await page.keyboard.press('Tab');
  const rows = view.getByTestId('diff-row');
  await expect(rows.first()).toBeFocused();
  await expect(rows).toHaveCount(1);
  await page.keyboard.press('j');
  await expect(rows.first()).toBeFocused();
  await page.keyboard.press('End');
  await expect(rows.last()).toBeFocused();
  // Tab goes on from the row to its "Show all" (the answer is long), which opens it.
  await page.keyboard.press('Tab');
  const more = rows.first().getByRole('button', { name: 'Show all' }).first();
  await expect(more).toBeFocused();
  await page.keyboard.press('Enter');
  const less = rows.first().getByRole('button', { name: 'Show less' });
  await expect(less).toBeFocused();
  await expect(less).toHaveAttribute('aria-expanded', 'true');

  await shot(page, 'time-travel.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'turndiff-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });
  await shot(page, 'turndiff-light.png');

  // A reload reads the address again: the same view.
  await page.reload();
  await expect(page).toHaveURL(new RegExp(`#/diff/${pair.original}/${pair.rerun}$`));
  await checkView(page, pair);

  // A narrow window stacks the sides, each cell naming its side.
  await page.setViewportSize({ width: 560, height: 900 });
  const cells = rows.first().locator('td[data-side]');
  const [a, b] = [await cells.nth(0).boundingBox(), await cells.nth(1).boundingBox()];
  expect(Math.abs(a!.x - b!.x)).toBeLessThan(2);
  expect(b!.y).toBeGreaterThan(a!.y);
  await expect(cells.nth(1).getByText('Re-run', { exact: true })).toBeVisible();
  await shot(page, 'turndiff-narrow.png');
});
