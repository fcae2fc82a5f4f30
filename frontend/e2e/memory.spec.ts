// The window's memory stays flat as sessions are opened one after
// another: the turn store (src/lib/stores/turns.svelte.ts) lets go of the
// turns of a session once another is open. The page's JavaScript heap is
// read through Chromium's DevTools protocol after a forced collection, at
// the 20th and at the 200th session opened; it may grow by at most 5 MB.
// All 200 sessions are listed in the sidebar first, so the list's rows
// (about 18 kB of DOM each) are not what is measured.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { answer, callAPI, expect, finished, newSession, OUT, send, test } from './fixtures';

const SESSIONS = 200;
const FROM = 20;
const LIMIT = 5 * 1024 * 1024;

// The browser mode's API, called as the page calls it (api.ts: a bearer
// token kept in sessionStorage), for setting up many sessions quickly.

async function heapAfterGC(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.enable');
  // Twice: the first collection can leave what finalizers just freed.
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.detach();
  return usedSize;
}

test('the heap grows by at most 5 MB between the 20th and the 200th session opened', async ({ page }) => {
  // One whole-test bound, for a loaded machine: 200 sessions are opened and drawn.
  test.setTimeout(900_000);
  await newSession(page);
  const turn = await send(page, 'Show me the sales by region');
  await finished(turn);
  await expect(answer(turn).last()).toBeVisible();
  const first = /#\/s\/([^/]+)/.exec(page.url())?.[1];
  expect(first).toBeTruthy();

  // 199 copies of the session (a plan, a chart, tool calls and an answer), each named.
  const { content } = await callAPI<{ content: string }>(page, 'ExportSession', first, 'json', {});
  const ids = [first!];
  for (let i = 1; i < SESSIONS; i++) {
    const s = await callAPI<{ id: string }>(page, 'ImportSession', content);
    ids.push(s.id);
  }
  for (const [i, id] of ids.entries()) await callAPI(page, 'RenameSession', id, `Memory ${i + 1}`);

  // Every session listed before the first measure: the list's rows are
  // what the person asked to see, the same at the 20th and the 200th.
  await page.reload();
  const nav = page.getByRole('navigation', { name: 'Session list' });
  const rows = nav.locator('li[data-session]');
  await expect(rows.first()).toBeVisible();
  while ((await rows.count()) < SESSIONS) {
    const before = await rows.count();
    await nav.evaluate((el) => (el.scrollTop = el.scrollHeight));
    await expect(rows).not.toHaveCount(before);
  }
  await newSession(page);
  const sizes: Record<number, number> = {};
  for (const [i, id] of ids.entries()) {
    await page.evaluate((h) => (location.hash = h), `#/s/${id}`);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Memory ${i + 1}`);
    const shown = page.getByRole('article', { name: 'Turn 1', exact: true });
    await expect(answer(shown).last()).toBeVisible();
    if (i + 1 === FROM || i + 1 === SESSIONS) sizes[i + 1] = await heapAfterGC(page);
  }

  const growth = sizes[SESSIONS]! - sizes[FROM]!;
  const report = `heap after GC: session ${FROM} ${(sizes[FROM]! / 1e6).toFixed(2)} MB, session ${SESSIONS} ${(sizes[SESSIONS]! / 1e6).toFixed(2)} MB, growth ${(growth / 1e6).toFixed(2)} MB`;
  console.log(report);
  writeFileSync(join(OUT, 'heap.txt'), `${report}\n`);
  expect(growth, report).toBeLessThanOrEqual(LIMIT);
});
