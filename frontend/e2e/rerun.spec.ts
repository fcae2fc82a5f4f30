// Re-run with a model of another provider: scripts/e2e.sh adds "second", a
// second fakellm whose "whoami" answer names it and the model it was asked
// for, so the answer shows which server ran the re-run.
import { answer, expect, finished, newSession, send, shot, test, uid } from './fixtures';
import { pickModel } from './models';
import type { Locator } from '@playwright/test';

/** A side of the comparison: its Provider and Model values. */
function side(dialog: Locator, title: string) {
  const s = dialog.getByRole('region', { name: title, exact: true });
  const value = (term: string) => s.locator('dt', { hasText: new RegExp(`^${term}$`) }).locator('xpath=following-sibling::dd[1]');
  return { provider: value('Provider'), model: value('Model') };
}

test("Re-run on another provider's model runs there, the comparison names both, and the new session opens", async ({ page }) => {
  await newSession(page);
  const ask = `whoami ${uid()}`;
  const turn = await send(page, ask);
  await finished(turn);
  await expect(answer(turn).last()).toHaveText('Answered by fakellm as smoke-model.');

  await turn.getByRole('button', { name: /Re-run with/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Re-run with…' });
  await pickModel(dialog, 'second', 'second-model');
  await dialog.getByRole('button', { name: 'Re-run' }).click();

  const cmp = page.getByRole('dialog', { name: /^Re-run:/ });
  await expect(cmp).toBeVisible();
  const orig = side(cmp, 'Original');
  const copy = side(cmp, 'Re-run');
  await expect(orig.provider).toHaveText('fake');
  await expect(orig.model).toHaveText('smoke-model');
  await expect(copy.provider).toHaveText('second');
  await expect(copy.model).toHaveText('second-model');
  // The second server answered, asked for its own model.
  await expect(cmp.locator('ins')).not.toHaveCount(0);
  await expect(cmp.locator('.text').nth(1)).toHaveText('Answered by second as second-model.');
  await shot(page, 'browser-rerun-compare.png');

  await cmp.getByRole('button', { name: 'Open the new session' }).click();
  await expect(cmp).toBeHidden();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Re-run of ${ask} #1`);
  const copied = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(answer(copied).last()).toHaveText('Answered by second as second-model.');
  await expect(page.getByText('second · second-model')).toBeVisible();
  await shot(page, 'browser-rerun-opened.png');
});

test('"Open the new session" works after a Replay', async ({ page }) => {
  await newSession(page);
  const ask = `whoami ${uid()}`;
  const turn = await send(page, ask);
  await finished(turn);
  await turn.getByRole('button', { name: 'Replay' }).click();
  const cmp = page.getByRole('dialog', { name: /^Replay:/ });
  await expect(side(cmp, 'Replay').provider).toHaveText('fake');
  await expect(cmp.getByText('identical')).toBeVisible();
  await cmp.getByRole('button', { name: 'Open the new session' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Replay of ${ask} #1`);
  await expect(answer(page.getByRole('article', { name: 'Turn 1', exact: true })).last()).toHaveText('Answered by fakellm as smoke-model.');
});
