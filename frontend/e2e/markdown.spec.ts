// Markdown streams as markdown: fakellm's "stream a table" answer is a
// 30-row table that streams for about 6 s; mid-stream it is already a
// table, with no raw pipes or asterisks on screen.
import { answer, expect, finished, newSession, send, shot, test, uid } from './fixtures';

test('a table streams formatted, row by row', async ({ page }) => {
  await newSession(page);
  const turn = await send(page, `Please stream a table ${uid()}`);
  const md = answer(turn).last();
  const rows = md.getByRole('table').getByRole('row');
  await expect(rows.nth(4)).toBeVisible();
  // One reading of the page, so what it says holds at one moment.
  const now = await md.evaluate((el) => ({
    rows: el.querySelectorAll('tr').length,
    text: el.textContent ?? '',
    strong: el.querySelector('strong')?.textContent,
    running: Array.from(document.querySelectorAll('button')).some((b) => b.textContent?.trim() === 'Stop'),
  }));
  expect(now.running, 'the turn was still streaming').toBe(true);
  expect(now.rows).toBeGreaterThanOrEqual(5);
  expect(now.rows).toBeLessThan(31);
  expect(now.strong).toBe('table');
  expect(now.text).not.toMatch(/[|*]/);
  await shot(page, 'browser-table-midstream.png');

  await finished(turn);
  await expect(rows).toHaveCount(31);
  await expect(md.getByRole('table').getByRole('columnheader')).toHaveText(['#', 'Region', 'Revenue']);
  await expect(md).toContainText('The end of the table answer.');
  await expect(md).not.toContainText('|');
});
