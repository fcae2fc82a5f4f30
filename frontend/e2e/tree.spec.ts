// Conversations as trees, on the real backend: edit a message into a new
// version and switch between versions (kept across a reload), open a
// search hit on another branch, regenerate with another provider's model,
// Retry a failed turn, Continue after Stop as one answer, and fork.
// fakellm answers "remember" with a plain answer, "whoami" with who
// answered, "slow" slowly, and a continuation with its short rest.
import type { Locator, Page } from '@playwright/test';
import { answer, composer, E2E_URL, expect, finished, newSession, openApp, send, shot, test, uid } from './fixtures';
import { pickModel } from './models';

const turnN = (page: Page, n: number) => page.getByRole('article', { name: `Turn ${n}`, exact: true });
const versions = (turn: Locator) => turn.getByRole('group', { name: 'Versions of this message' });

/** The messages of the turns shown, top to bottom. */
async function shown(page: Page): Promise<string[]> {
  return page.locator('article .bubble').allTextContents();
}

test('edit makes a new version; switching shows each branch, and a reload keeps the last one', async ({ page }) => {
  await newSession(page);
  const id = uid();
  const one = await send(page, `remember alpha ${id}`);
  await finished(one);
  const two = await send(page, `remember beta ${id}`);
  await finished(two);

  await one.hover();
  await one.getByRole('button', { name: 'Edit this message' }).click();
  const box = one.getByRole('textbox', { name: 'Edit your message' });
  await expect(box).toBeFocused();
  await box.fill(`remember gamma ${id}`);
  await box.press('Enter');
  const three = turnN(page, 3);
  await finished(three);
  await expect.poll(() => shown(page)).toEqual([`remember gamma ${id}`]);
  await expect(versions(three)).toContainText('2 / 2');
  await shot(page, 'browser-versions.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'browser-versions-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  await versions(three).getByRole('button', { name: 'Previous version' }).click();
  await expect.poll(() => shown(page)).toEqual([`remember alpha ${id}`, `remember beta ${id}`]);
  await expect(versions(turnN(page, 1))).toContainText('1 / 2');
  await versions(turnN(page, 1)).getByRole('button', { name: 'Next version' }).click();
  await expect.poll(() => shown(page)).toEqual([`remember gamma ${id}`]);
  await versions(three).getByRole('button', { name: 'Previous version' }).click();
  await expect.poll(() => shown(page)).toEqual([`remember alpha ${id}`, `remember beta ${id}`]);

  // The branch looked at last is the session's: a reload opens it.
  await openApp(page, E2E_URL);
  await page.getByRole('navigation', { name: 'Session list' }).getByText(`remember alpha ${id}`).click();
  await expect.poll(() => shown(page)).toEqual([`remember alpha ${id}`, `remember beta ${id}`]);
  await expect(versions(turnN(page, 1))).toContainText('1 / 2');

  // A search hit on the other branch opens that branch at the hit.
  await page.keyboard.press('Control+k');
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill(`gamma ${id}`);
  await page
    .getByRole('button')
    .filter({ hasText: `remember gamma ${id}` })
    .first()
    .click();
  await expect.poll(() => shown(page)).toEqual([`remember gamma ${id}`]);
  await expect(versions(turnN(page, 3))).toContainText('2 / 2');
});

test('ArrowUp in the empty composer edits the last message', async ({ page }) => {
  await newSession(page);
  const id = uid();
  const one = await send(page, `remember up ${id}`);
  await finished(one);
  await composer(page).press('ArrowUp');
  const box = one.getByRole('textbox', { name: 'Edit your message' });
  await expect(box).toHaveValue(`remember up ${id}`);
  await box.press('Escape');
  await expect(box).toBeHidden();
});

test('Regenerate with another model keeps both answers as versions', async ({ page }) => {
  await newSession(page);
  const one = await send(page, `whoami ${uid()}`);
  await finished(one);
  await expect(answer(one).last()).toHaveText('Answered by fakellm as smoke-model.');

  await one.getByRole('button', { name: 'More actions' }).click();
  await one.getByRole('menuitem', { name: /Regenerate with/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Regenerate with…' });
  await pickModel(dialog, 'second', 'second-model');
  await dialog.getByRole('button', { name: 'Regenerate' }).click();
  await expect(dialog).toBeHidden();

  const two = turnN(page, 2);
  await finished(two);
  await expect(answer(two).last()).toHaveText('Answered by second as second-model.');
  await expect(versions(two)).toContainText('2 / 2');
  await expect(page.getByRole('article')).toHaveCount(1);
  await versions(two).getByRole('button', { name: 'Previous version' }).click();
  await expect(answer(turnN(page, 1)).last()).toHaveText('Answered by fakellm as smoke-model.');
});

test('Retry runs a failed message again as a new version', async ({ page }) => {
  await newSession(page);
  await pickModel(page, 'dead', 'dead-model');
  const msg = `remember retry ${uid()}`;
  const one = await send(page, msg);
  await finished(one);
  await expect(one.getByText('Failed', { exact: true })).toBeVisible();

  // The server is back (here: another provider is picked), and Retry.
  await pickModel(page, 'fake', 'smoke-model');
  await one.getByRole('button', { name: 'Retry' }).click();
  const two = turnN(page, 2);
  await finished(two);
  await expect(answer(two).last()).toContainText('quixotically');
  await expect(two.getByText(msg, { exact: true })).toBeVisible();
  await expect(versions(two)).toContainText('2 / 2');
  await expect(page.getByRole('article')).toHaveCount(1);
});

test('Continue after Stop gives one answer with a mark where it resumed, and is gone after', async ({ page }) => {
  await newSession(page);
  const one = await send(page, `Answer slow please ${uid()}`);
  await expect(answer(one).last()).toContainText('word20');
  await page.keyboard.press('Escape');
  await finished(one);
  await one.getByRole('button', { name: 'Continue' }).click();

  const two = turnN(page, 2);
  await finished(two);
  await expect(two.getByText('Resumed', { exact: true })).toBeVisible();
  await expect(two.locator('.bubble')).toHaveCount(0);
  await expect(answer(two).last()).toContainText('where the answer ends, resumed after Stop');
  await expect(page.getByRole('button', { name: 'Continue' })).toHaveCount(0);
  await shot(page, 'browser-continued.png');

  await openApp(page, E2E_URL);
  await page.getByRole('navigation', { name: 'Session list' }).getByText('Answer slow please').first().click();
  await expect(turnN(page, 2).getByText('Resumed', { exact: true })).toBeVisible();
  await expect(answer(turnN(page, 1)).last()).toContainText('word20');
  await expect(page.getByRole('button', { name: 'Continue' })).toHaveCount(0);
});

test('Fork from here starts a session with the path so far, linked back', async ({ page }) => {
  await newSession(page);
  const id = uid();
  const title = `remember fork ${id}`;
  const one = await send(page, title);
  await finished(one);
  const two = await send(page, `remember more ${id}`);
  await finished(two);

  await one.getByRole('button', { name: 'More actions' }).click();
  await one.getByRole('menuitem', { name: 'Fork from here' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${title} (fork)`);
  await expect.poll(() => shown(page)).toEqual([title]);
  const link = page.getByRole('button', { name: `Forked from “${title}”` });
  await expect(link).toBeVisible();
  await shot(page, 'browser-forked.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await one.page().getByRole('article').first().getByRole('button', { name: 'More actions' }).click();
  await shot(page, 'browser-forked-dark.png');
  await page.keyboard.press('Escape');
  await page.emulateMedia({ colorScheme: 'light' });

  await link.click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  await expect.poll(() => shown(page)).toEqual([title, `remember more ${id}`]);
});
