// Running an evaluation suite from the Evaluations page, as a person does:
// open the Run panel, pick the suite and the calls, press Run.
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures';

/** Opens the Run panel (if it is not) and starts a run of file; returns the panel. */
export async function runSuite(page: Page, file: string, capture: 'record' | 'replay' = 'record'): Promise<Locator> {
  const toggle = page.getByRole('button', { name: /Run a suite/ });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  const panel = page.getByRole('region', { name: 'Run a suite' });
  await panel.getByRole('combobox', { name: 'Suite' }).selectOption(file);
  await panel.getByRole('combobox', { name: 'Calls' }).selectOption(capture);
  const before = page.url();
  await panel.getByRole('button', { name: /Run$/ }).click();
  await expect(page).not.toHaveURL(before);
  await expect(page).toHaveURL(/#\/evals\/[^/]+$/);
  return panel;
}
