// Stop mid-stream: fakellm's "slow" answer is 2,000 words 100 ms apart,
// so it is still streaming when Stop comes, however slow the machine.
import { answer, expect, finished, newSession, openApp, ORIGIN, send, shot, test, uid } from './fixtures';

test('Esc stops a streaming answer, which stays after a reload', async ({ page }) => {
  await newSession(page);
  const title = `Answer slow please ${uid()}`;
  const turn = await send(page, title);
  const md = answer(turn).last();
  await expect(md).toContainText('word20');
  const early = (await md.textContent())?.length ?? 0;
  await expect(md).toContainText('word40');
  expect((await md.textContent())?.length ?? 0).toBeGreaterThan(early);
  await expect(page.getByRole('button', { name: 'Stop' }).first()).toBeVisible();

  await page.keyboard.press('Escape');
  await finished(turn);
  await expect(turn.getByText('Stopped', { exact: true })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await expect(turn.getByRole('button', { name: 'Continue' })).toBeVisible();
  const stopped = normalize(await md.textContent());
  expect(stopped).toMatch(/^Slow answer begins\. word0 word1 /);
  expect(stopped).not.toContain('word1999');
  await shot(page, 'browser-stopped.png');

  // A plain reload of the bare origin: the cookie set by the first load is
  // the only credential now.
  await openApp(page, `${ORIGIN}/`);
  await page.getByRole('navigation', { name: 'Session list' }).getByText(title).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  const again = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(again.getByText('Stopped', { exact: true })).toBeVisible();
  await expect(answer(again).last()).toContainText('word40');
  expect(normalize(await answer(again).last().textContent())).toBe(stopped);
});

function normalize(s: string | null): string {
  return (s ?? '').replace(/\s+/g, ' ').trim();
}
