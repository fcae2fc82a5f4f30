// The blind arena, keyboard only, against the real backend: a blind group
// of two columns on the two scripted models, made through the HTTP API the
// page uses (SendSideBySide with the token), voted on, and the Arena page
// showing both targets with their counts, filtered to the group's project.
//
// "the Arena page shows …" needs nothing but the Arena page (it votes
// through the API). "a blind vote under the columns …" votes through the
// vote bar under the side-by-side columns, which the columns' branch
// (i44-cols) shows: it passes once that is merged with this one.
import type { Locator, Page } from '@playwright/test';
import { blindGroup, labels, voteFor } from './arena';
import { expect, shot, test } from './fixtures';

/** Presses Tab (or Shift+Tab) until the element has focus. */
async function tabTo(page: Page, target: Locator, back = false): Promise<void> {
  const focused = () => target.evaluate((el) => el === document.activeElement).catch(() => false);
  for (let i = 0; i < 200 && !(await focused()); i++) await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  expect(await focused(), `Tab reaches ${target}`).toBe(true);
}

/** Opens the Arena page from the sidebar with the keyboard, kept to one project. */
async function arenaOf(page: Page, projectName: string): Promise<Locator> {
  await tabTo(page, page.getByRole('button', { name: 'Arena', exact: true }), true);
  await page.keyboard.press('Enter');
  const arena = page.getByTestId('arena-page');
  await expect(arena.getByRole('heading', { level: 1 })).toHaveText('Arena');
  const filter = arena.getByRole('combobox', { name: 'Project' });
  await expect(filter.getByRole('option', { name: projectName })).toBeAttached();
  await tabTo(page, filter);
  // A closed select picks the option whose name is typed.
  await page.keyboard.type(projectName);
  await expect(filter).toHaveValue(
    await filter
      .getByRole('option', { name: projectName })
      .getAttribute('value')
      .then((v) => v ?? ''),
  );
  return arena;
}

/** The board's row of a target. */
function rowOf(arena: Locator, label: string): Locator {
  return arena.getByTestId('arena-row').filter({ has: arena.page().getByRole('rowheader', { name: label, exact: true }) });
}

test('the Arena page shows both targets of a blind vote with their counts, and opens the session', async ({ page }) => {
  const g = await blindGroup(page);
  await voteFor(page, g, labels[1]!, 'Shorter and right.');

  const arena = await arenaOf(page, g.projectName);
  await expect(arena.getByRole('table', { name: 'Leaderboard' })).toBeVisible();
  await expect(arena.getByTestId('arena-row')).toHaveCount(2);
  const winner = rowOf(arena, labels[1]!);
  const loser = rowOf(arena, labels[0]!);
  await expect(winner.locator('td').first()).toHaveText('1');
  await expect(winner).toContainText('1 / 0 / 0');
  await expect(loser.locator('td').first()).toHaveText('2');
  await expect(loser).toContainText('0 / 1 / 0');
  // The interval is in words too, not only drawn.
  await expect(winner).toContainText(/95%: \d+–\d+/);
  await expect(arena).toContainText('1 vote · 1 comparison');

  const votes = arena.getByRole('table', { name: 'Recent votes' });
  await expect(votes.getByTestId('arena-vote')).toHaveCount(1);
  const vote = votes.getByTestId('arena-vote').first();
  await expect(vote).toContainText(`Won: ${labels[1]}`);
  await expect(vote).toContainText('Shorter and right.');
  await expect(vote).toContainText('blind');
  await shot(page, 'arena-page.png');

  // The session's link opens it, by the keyboard.
  await tabTo(page, vote.getByRole('link', { name: g.sessionTitle }));
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`#/s/${g.sessionId}$`));
  await expect(page.getByTestId('arena-page')).toHaveCount(0);
});

// Needs the side-by-side columns (components/sidebyside, branch i44-cols)
// with the VoteBar placed under them: passes after the merge.
test('a blind vote under the columns shows the names only after it, and counts on the Arena page (needs the columns)', async ({ page }) => {
  const g = await blindGroup(page);
  await page.evaluate((id) => (location.hash = `#/s/${id}`), g.sessionId);
  const columns = page.getByRole('article', { name: 'Side by side' });
  await expect(columns).toBeVisible();
  const bar = page.getByRole('region', { name: 'Which answer is better?' });
  await expect(bar).toBeVisible();
  for (const l of labels) await expect(columns).not.toContainText(l);
  await expect(bar.getByRole('button', { name: /A is better/ })).toHaveAttribute('aria-keyshortcuts', '1');
  await shot(page, 'vote-bar-blind.png');

  // Typing in the note votes nothing, though it holds 2, t and x.
  const note = bar.getByRole('textbox', { name: /Note/ });
  await tabTo(page, note);
  await page.keyboard.type('2 steps, shorter text');
  await expect(note).toHaveValue('2 steps, shorter text');
  await expect(bar).toBeVisible();
  for (const l of labels) await expect(columns).not.toContainText(l);

  // Back on the buttons, 2 votes for B (slot 1).
  await page.keyboard.press('Shift+Tab');
  await expect(bar.getByRole('button', { name: /Both are bad/ })).toBeFocused();
  await page.keyboard.press('2');
  const result = page.getByTestId('vote-result');
  await expect(result).toContainText(`${g.columns[1]!.target} is better`);
  await expect(page.getByRole('button', { name: 'Change vote' })).toBeFocused();
  for (const l of labels) await expect(columns).toContainText(l);
  await shot(page, 'vote-bar-voted.png');

  const arena = await arenaOf(page, g.projectName);
  await expect(rowOf(arena, g.columns[1]!.target)).toContainText('1 / 0 / 0');
  await expect(rowOf(arena, g.columns[0]!.target)).toContainText('0 / 1 / 0');
  await expect(arena.getByTestId('arena-vote').first()).toContainText('2 steps, shorter text');
});
