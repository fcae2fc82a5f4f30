// Side by side: one message to three models at once, against the real
// backend. fakellm's "race" message is answered at once by the first
// fakellm (providers fake and small) and for minutes by the one named
// second, so its column is still streaming when the test stops it. The
// targets, the send, the Stops and "Continue with this one" are picked and
// pressed with the keys (focus, then typing, Down, Enter or Esc), never
// clicked.
import { composer, expect, finished, newSession, openApp, ORIGIN, OUT, test, uid } from './fixtures';
import { modelBox } from './models';
import type { Locator, Page } from '@playwright/test';
import { join } from 'node:path';

/** The columns' region, and one column by its header's name. */
const sideBySide = (page: Page) => page.getByRole('article', { name: 'Side by side', exact: true });
const column = (page: Page, name: string) => sideBySide(page).getByRole('region', { name, exact: true });

/** Presses a control with the keyboard: focus, then Enter. */
async function press(control: Locator, key = 'Enter') {
  await control.focus();
  await expect(control).toBeFocused();
  await control.press(key);
}

/**
 * Picks a provider's model in a model combobox by the keys alone: types
 * the model, then Down until the active option is that provider's, and
 * Enter.
 */
async function pickModelByKeys(page: Page, provider: string, model: string, name: string) {
  const box = modelBox(page, name);
  await box.focus();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type(model);
  for (let i = 0; i < 40; i++) {
    await box.press('ArrowDown');
    const id = await box.getAttribute('aria-activedescendant');
    if (!id) continue;
    const option = page.locator(`[id="${id}"]`);
    const group = await option.evaluate((el) => el.closest('[role="group"]')?.getAttribute('aria-label') ?? '');
    const shown = ((await option.locator('.name').textContent()) ?? '').trim();
    if (group === provider && shown === model) break;
  }
  await box.press('Enter');
  await expect(box).toHaveValue(model);
  await expect(box).toHaveAttribute('data-provider', provider);
}

/** Opens "Side by side" in the composer and adds targets to the session's model, by the keys. */
async function pickTargets(page: Page, targets: Array<[provider: string, model: string]>) {
  await press(page.getByRole('form', { name: 'Message' }).getByRole('button', { name: /^Side by side/ }));
  const chips = page.getByRole('list', { name: 'Targets' });
  await expect(chips.getByRole('listitem')).toHaveCount(1);
  for (const [provider, model] of targets) {
    await pickModelByKeys(page, provider, model, 'Model to add');
    await press(page.getByRole('button', { name: 'Add target' }));
  }
  await expect(chips.getByRole('listitem')).toHaveCount(targets.length + 1);
}

/** Types a message in the composer and sends it with Enter. */
async function sendByKeys(page: Page, text: string) {
  await composer(page).focus();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

for (const scheme of ['light', 'dark'] as const) {
  test(`three models side by side: stop one, continue with another, reopen the group (${scheme})`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.emulateMedia({ colorScheme: scheme });
    await newSession(page);
    const title = `Side by side race ${uid()}`;
    await composer(page).fill('');
    await pickTargets(page, [
      ['second', 'second-model'],
      ['small', 'smoke-model'],
    ]);
    await sendByKeys(page, title);

    const a = column(page, 'Column A: smoke-model · fake');
    const b = column(page, 'Column B: second-model · second');
    const c = column(page, 'Column C: smoke-model · small');
    await expect(sideBySide(page).getByTestId('column')).toHaveCount(3);
    await expect(a).toContainText('Answered by fakellm as smoke-model.');
    await expect(c).toContainText('Answered by fakellm as smoke-model.');
    await expect(b).toContainText('word5');
    await expect(a.getByTestId('column-state')).toHaveText('Done');
    await expect(b.getByTestId('column-state')).toHaveText('Running');
    // The composer stops every column while one runs.
    await expect(page.getByRole('button', { name: 'Stop all' }).first()).toBeVisible();

    // Column B's own Stop, from the keyboard: the others are left as they are.
    await press(b.getByRole('button', { name: 'Stop column B, second-model · second' }));
    await expect(b.getByTestId('column-state')).toHaveText('Stopped');
    await expect(a.getByTestId('column-state')).toHaveText('Done');
    await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
    await expect(page.getByTestId('to-columns')).toHaveText('To each of the 3 columns');

    // A message sent now goes to each column's own branch; Esc stops them all.
    await sendByKeys(page, `And again, race ${uid()}`);
    await expect(b.getByRole('article')).toHaveCount(2);
    await expect(a.getByRole('article')).toHaveCount(2);
    await expect(b.getByRole('article').last()).toContainText('word3');
    await composer(page).focus();
    await page.keyboard.press('Escape');
    await expect(b.getByTestId('column-state')).toHaveText('Stopped');
    await expect(a.getByTestId('column-state')).not.toHaveText('Running');

    // Continue with column C: one conversation again, the others versions.
    await press(c.getByRole('button', { name: 'Continue with this one (column C, smoke-model · small)' }));
    await expect(sideBySide(page)).toHaveCount(0);
    const first = page.getByRole('article', { name: 'Turn 3', exact: true });
    await expect(first).toBeVisible();
    await finished(first);
    await expect(first.getByRole('group', { name: 'Versions of this message' })).toContainText('3 / 3');

    // A reload shows the branch continued with; the version switcher opens the group again.
    await openApp(page, `${ORIGIN}/`);
    await page.getByRole('navigation', { name: 'Session list' }).getByText(title).click();
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
    await expect(sideBySide(page)).toHaveCount(0);
    // The newest turn's group: its chain holds both messages.
    await press(page.getByRole('button', { name: 'Open side by side' }).last());
    await expect(sideBySide(page).getByTestId('column')).toHaveCount(3);
    await expect(column(page, 'Column B: second-model · second').getByRole('article')).toHaveCount(2);

    // And a reload reopens the same columns.
    await openApp(page, `${ORIGIN}/`);
    await page.getByRole('navigation', { name: 'Session list' }).getByText(title).click();
    await expect(sideBySide(page).getByTestId('column')).toHaveCount(3);
    await expect(column(page, 'Column C: smoke-model · small')).toContainText('Answered by fakellm as smoke-model.');
  });
}

test('three columns streaming at once, then Stop all with Esc (the README screenshot)', async ({ page }) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  await newSession(page);
  // Three models of the slow server: every column streams for minutes.
  await pickTargets(page, [['second', 'second-model']]);
  await press(page.getByRole('button', { name: 'Remove smoke-model · fake' }));
  for (const name of ['second-mini', 'second-large']) {
    // A name the server does not list, typed: on the provider picked last.
    const box = modelBox(page, 'Model to add');
    await box.fill(name);
    await box.press('Enter');
    await expect(box).toHaveAttribute('data-provider', 'second');
    await press(page.getByRole('button', { name: 'Add target' }));
  }
  await expect(page.getByRole('list', { name: 'Targets' }).getByRole('listitem')).toHaveCount(3);
  await sendByKeys(page, `Compare these: a side by side race ${uid()}`);
  const cols = sideBySide(page).getByTestId('column');
  await expect(cols).toHaveCount(3);
  for (let i = 0; i < 3; i++) await expect(cols.nth(i)).toContainText('word12');
  await expect(sideBySide(page).getByRole('button', { name: 'Stop all' })).toBeVisible();
  await page.screenshot({ path: join(OUT, 'side-by-side.png') });

  await composer(page).focus();
  await page.keyboard.press('Escape');
  for (let i = 0; i < 3; i++) await expect(cols.nth(i).getByTestId('column-state')).toHaveText('Stopped');
});
