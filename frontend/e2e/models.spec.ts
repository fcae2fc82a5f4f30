// Issue 40: a model the server does not list can be chosen. fakellm lists
// only smoke-model but answers any model, and its "whoami" answer names
// the model the request asked for: so the answer proves which name went
// to the server. Also the turn's ⋯ menu from the keyboard, the sidebar's
// Tab stop after the address changes, and a fork's badge in search hits.
import type { Page } from '@playwright/test';
import { answer, composer, expect, finished, newSession, send, shot, test, uid } from './fixtures';
import { audit } from './axe';
import { modelBox, modelList, pickModel } from './models';

const MODEL_URL = process.env.E2E_MODEL_URL!;

test('a model name the server does not list is typed and used for a turn', async ({ page }) => {
  await newSession(page);
  const form = page.getByRole('form', { name: 'Message' });
  const box = modelBox(form);
  const name = `typed-model-${uid()}`;
  await box.fill(name);
  const list = await modelList(box);
  await expect(list.getByRole('option').first()).toHaveText(`Use “${name}” on fake`);
  // Open with every suggestion, then with the name typed, audited in light and dark.
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(page.locator('html')).toHaveAttribute('data-theme', scheme);
    await shot(page, `browser-model-typed-${scheme}.png`);
    await audit(page, 'model-typed', scheme);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await box.press('Enter');
  await expect(box).toHaveValue(name);
  await expect(box).toHaveAttribute('aria-expanded', 'false');
  // Enter picked the name and did not send anything.
  await expect(page.getByRole('article')).toHaveCount(0);

  const turn = await send(page, `whoami ${uid()}`);
  await finished(turn);
  await expect(answer(turn).last()).toHaveText(`Answered by fakellm as ${name}.`);
  // Stored with the session and the turn: the header and the turn's line say it.
  await expect(page.getByText(`fake · ${name}`)).toBeVisible();
  await page.reload();
  await expect(modelBox(page.getByRole('form', { name: 'Message' }))).toHaveValue(name);
});

async function openProviders(page: Page) {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Providers' }).click();
  return dialog;
}

test('a provider saved with a default model its server does not list shows it as chosen and runs it', async ({ page }) => {
  const provider = `dep${uid()}`.slice(0, 20);
  const deployment = `my-deployment-${uid()}`;
  let dialog = await openProviders(page);
  await dialog.getByRole('combobox', { name: 'Add a provider' }).selectOption('custom');
  await dialog.getByRole('textbox', { name: 'Name' }).fill(provider);
  await dialog.getByRole('textbox', { name: 'Base URL' }).fill(MODEL_URL);
  // The server lists smoke-model only; the name typed is kept.
  await dialog.getByRole('button', { name: 'Test connection' }).click();
  await expect(dialog.getByText(/^Connected\. 1 models: smoke-model/)).toBeVisible();
  const def = modelBox(dialog, 'Default model');
  await def.fill(deployment);
  await def.press('Enter');
  await expect(def).toHaveValue(deployment);
  await shot(page, 'browser-model-provider-form.png');
  await dialog.getByRole('button', { name: 'Save' }).click();
  const card = dialog.getByRole('listitem').filter({ has: page.getByText(provider, { exact: true }) });
  await expect(card).toContainText(`default ${deployment}`);

  // Edited again, the form shows it as chosen, not the first listed model.
  await card.getByRole('button', { name: 'Edit' }).click();
  await expect(modelBox(dialog, 'Default model')).toHaveValue(deployment);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();

  // The composer offers it on its provider, marked as the default.
  await newSession(page);
  const form = page.getByRole('form', { name: 'Message' });
  await modelBox(form).click();
  const group = (await modelList(modelBox(form))).getByRole('group', { name: provider, exact: true });
  await expect(group.getByRole('option')).toHaveText([`${deployment} · default`, 'smoke-model']);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await shot(page, 'browser-model-list-dark.png');
  await audit(page, 'model-list', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await pickModel(form, provider, deployment);
  const turn = await send(page, `whoami ${uid()}`);
  await finished(turn);
  await expect(answer(turn).last()).toHaveText(`Answered by fakellm as ${deployment}.`);

  // Leave the shared database's provider list as it was.
  dialog = await openProviders(page);
  await dialog.getByRole('button', { name: `Delete provider ${provider}` }).click();
  await page.getByRole('dialog', { name: 'Delete provider?' }).getByRole('button', { name: 'Delete' }).click();
  await expect(dialog.getByText(provider, { exact: true })).toHaveCount(0);
});

test('the ⋯ menu of a turn works with arrow keys, Home, End and Escape', async ({ page }) => {
  await newSession(page);
  const turn = await send(page, `Please remember the menu ${uid()}`);
  await finished(turn);
  const more = turn.getByRole('button', { name: 'More actions' });
  await more.focus();
  await page.keyboard.press('Enter');
  const menu = turn.getByRole('menu', { name: 'More actions' });
  await expect(menu).toBeVisible();
  const items = menu.getByRole('menuitem');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(items.nth(1)).toBeFocused();
  await page.keyboard.press('End');
  await expect(items.last()).toHaveText('Delete…');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(items.first()).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('Home');
  await expect(items.first()).toBeFocused();
  await shot(page, 'browser-turn-menu.png');
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(more).toBeFocused();
  // Escape closed the menu only: the turn and the page are as they were.
  await expect(turn.getByRole('button', { name: 'Replay' })).toBeVisible();
  await page.keyboard.press('ArrowUp');
  await expect(items.last()).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(menu).toBeHidden();
});

test("the sidebar's Tab stop follows the session the address opens", async ({ page }) => {
  const titles: string[] = [];
  for (const n of [1, 2]) {
    await newSession(page);
    const title = `Tab stop ${n} ${uid()}`;
    titles.push(title);
    await finished(await send(page, title));
  }
  const nav = page.getByRole('navigation', { name: 'Session list' });
  const row = (t: string) => nav.getByRole('button', { name: t, exact: true });
  await row(titles[0]!).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(titles[0]!);
  await row(titles[1]!).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(titles[1]!);
  await expect(row(titles[1]!)).toBeFocused();
  await expect(row(titles[1]!)).toHaveAttribute('tabindex', '0');

  await page.goBack();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(titles[0]!);
  await expect(row(titles[0]!)).toHaveAttribute('aria-current', 'page');
  await expect(row(titles[0]!)).toHaveAttribute('tabindex', '0');
  await expect(row(titles[1]!)).toHaveAttribute('tabindex', '-1');
  await expect(nav.locator('button.open[tabindex="0"]')).toHaveCount(1);
});

test('a fork is marked in search hits with a badge the ellipsis never cuts', async ({ page }) => {
  await page.setViewportSize({ width: 1100, height: 800 });
  await newSession(page);
  // At most 60 characters, or the title is cut when it is made.
  const title = `Please remember quarterly figures, all regions ${uid()}`.slice(0, 60);
  const turn = await send(page, title);
  await finished(turn);
  await turn.getByRole('button', { name: 'More actions' }).click();
  await turn.getByRole('menuitem', { name: 'Fork from here' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${title} (fork)`);

  const box = page.getByRole('searchbox', { name: 'Search sessions' });
  await box.fill(title.split(' ').at(-1)!);
  const hits = page.getByRole('button').filter({ hasText: title });
  const forked = hits.filter({ has: page.locator('.fork') });
  await expect(forked.first()).toBeVisible();
  // The original's hits have no badge.
  await expect(hits.filter({ hasNot: page.locator('.fork') }).first()).toBeVisible();
  const badge = forked.first().locator('.fork');
  await expect(badge).toHaveText('fork');
  await expect(badge).toBeInViewport();
  // The title is cut by the ellipsis, and the badge is whole beside it.
  const titleBox = await forked.first().locator('.title').boundingBox();
  const badgeBox = await badge.boundingBox();
  expect(titleBox!.x + titleBox!.width).toBeLessThanOrEqual(badgeBox!.x);
  expect(
    await forked
      .first()
      .locator('.title')
      .evaluate((el) => el.scrollWidth > el.clientWidth),
  ).toBe(true);
  await shot(page, 'browser-search-fork.png');
  await composer(page).focus();
});
