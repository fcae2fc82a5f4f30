// Markdown streams as markdown: fakellm's "stream a table" answer is a
// 30-row table that streams for about 6 s; at every moment it is on
// screen it is a table, with no raw pipes or asterisks.
import { answer, expect, finished, newSession, send, shot, test, uid } from './fixtures';

interface Seen {
  /** The answer as each change to the page left it. */
  tableStates: Array<{ rows: number; raw: boolean; running: boolean }>;
}

test('a table streams formatted, row by row', async ({ page }) => {
  await newSession(page);
  // Record the newest answer after every change to the page, with whether
  // the turn was still running (its Stop button shown) at that moment.
  await page.evaluate(() => {
    const w = window as unknown as Seen;
    w.tableStates = [];
    new MutationObserver(() => {
      const turns = document.querySelectorAll('article');
      const mds = turns[turns.length - 1]?.querySelectorAll('.md');
      const md = mds?.[mds.length - 1];
      if (!md?.querySelector('table')) return;
      const running = Array.from(document.querySelectorAll('button')).some((b) => b.textContent?.trim() === 'Stop');
      w.tableStates.push({ rows: md.querySelectorAll('tr').length, raw: /[|*]/.test(md.textContent ?? ''), running });
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const turn = await send(page, `Please stream a table ${uid()}`);
  await page.waitForFunction(() => (window as unknown as Seen).tableStates.some((s) => s.running && s.rows >= 5));
  await shot(page, 'browser-table-midstream.png');
  await finished(turn);

  const md = answer(turn).last();
  const rows = md.getByRole('table').getByRole('row');
  await expect(rows).toHaveCount(31);
  await expect(md.getByRole('table').getByRole('columnheader')).toHaveText(['#', 'Region', 'Revenue']);
  await expect(md.locator('strong')).toHaveText('table');
  await expect(md).toContainText('The end of the table answer.');
  const states = await page.evaluate(() => (window as unknown as Seen).tableStates);
  const midstream = states.filter((s) => s.running && s.rows < 31);
  expect(midstream.length, 'changes seen while the table streamed').toBeGreaterThan(0);
  expect(
    states.filter((s) => s.raw),
    'states showing raw | or *',
  ).toEqual([]);
});
