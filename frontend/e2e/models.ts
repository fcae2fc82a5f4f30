// The model pickers are comboboxes (ModelCombobox.svelte): a spec picks a
// model as a person does, typing its name and clicking the suggestion on
// the provider wanted.
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures';

/** The picker named "Model" in scope (the composer, a dialog, the page). */
export function modelBox(scope: Page | Locator, name = 'Model'): Locator {
  return scope.getByRole('combobox', { name, exact: true });
}

/** The suggestions a picker controls. */
export async function modelList(box: Locator): Promise<Locator> {
  const id = await box.getAttribute('aria-controls');
  return box.page().locator(`[id="${id}"]`);
}

/** Picks model, listed on provider, in the picker. */
export async function pickModel(scope: Page | Locator, provider: string, model: string, name = 'Model'): Promise<void> {
  const box = modelBox(scope, name);
  await box.fill(model);
  const list = await modelList(box);
  await list
    .getByRole('group', { name: provider, exact: true })
    .locator('[role="option"]')
    .filter({ has: box.page().locator('.name', { hasText: new RegExp(`^${model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) })
    .click();
  await expect(box).toHaveValue(model);
  await expect(box).toHaveAttribute('data-provider', provider);
}
