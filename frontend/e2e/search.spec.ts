// Search across sessions (SQLite FTS5): fakellm's "remember" answer holds
// the rare word "quixotically".
import { answer, expect, finished, newSession, send, shot, test, uid } from './fixtures';

const WORD = 'quixotically';

test('Ctrl+K search finds an old answer, highlights it and opens its session', async ({ page }) => {
  await newSession(page);
  const title = `Please remember this ${uid()}`;
  const turn = await send(page, title);
  await finished(turn);
  await expect(answer(turn).last()).toContainText(WORD);

  await newSession(page);
  await expect(page.getByRole('article')).toHaveCount(0);
  await page.keyboard.press('Control+k');
  const box = page.getByRole('searchbox', { name: 'Search sessions' });
  await expect(box).toBeFocused();
  await box.pressSequentially(WORD.slice(0, 9), { delay: 20 });
  await box.pressSequentially(WORD.slice(9));
  const hit = page.getByRole('button').filter({ hasText: title });
  await expect(hit).toHaveCount(1);
  await expect(hit.locator('mark')).toHaveText([new RegExp(`^${WORD}$`, 'i')]);
  await expect(hit).toContainText('Message');
  await shot(page, 'browser-search.png');

  await hit.click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  const opened = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(opened.getByText(title, { exact: true })).toBeVisible();
  await expect(answer(opened).last()).toContainText(`by the word ${WORD}`);
});
