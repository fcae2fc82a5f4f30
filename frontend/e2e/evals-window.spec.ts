// Evaluations made and run in the window, against the scripted model: two
// chat turns become the cases of a new suite (Add to evaluation; the
// second's reference edited so it fails), the suite runs from the
// Evaluations page with its progress, a failing result opens as its turn,
// the suite replays offline and the two runs compare the same, and a slow
// suite is stopped mid-run and kept cancelled.
import type { Locator, Page } from '@playwright/test';
import { audit } from './axe';
import { runSuite } from './evalsuite';
import { expect, finished, newSession, openApp, send, shot, test, uid } from './fixtures';

/** Adds a turn to a suite through its menu: a new one when name is given, else file; edit changes the YAML first. */
async function addToEval(page: Page, turn: Locator, to: { name?: string; file?: string }, edit?: (yaml: string) => string) {
  await turn.getByRole('button', { name: 'More actions' }).click();
  await turn.getByRole('menuitem', { name: /Add to evaluation/ }).click();
  const dialog = page.getByRole('dialog', { name: 'Add to evaluation' });
  const yaml = dialog.getByRole('textbox', { name: /The case/ });
  await expect(yaml).toHaveValue(/similar_to/);
  const suite = dialog.getByRole('combobox', { name: 'Suite' });
  if (to.name) {
    await suite.selectOption('');
    await dialog.getByRole('textbox', { name: 'Name of the new suite' }).fill(to.name);
  } else {
    await suite.selectOption(to.file!);
    await expect(dialog).toContainText("It runs on the suite's models: fake/smoke-model");
  }
  if (edit) {
    const before = await yaml.inputValue();
    const after = edit(before);
    expect(after, `the edit changed nothing in:\n${before}`).not.toBe(before);
    await yaml.fill(after);
  }
  await dialog.getByRole('button', { name: 'Add to suite' }).click();
  await expect(dialog).toBeHidden();
}

test('a suite made from turns runs in the window, opens a failing turn, replays, compares and stops', async ({ page }) => {
  test.setTimeout(240_000);
  const id = uid();
  const suite = `From chats ${id}`;
  const file = `from-chats-${id}.yaml`;
  await openApp(page);
  await newSession(page);
  const first = await send(page, `whoami first ${id}`);
  await finished(first);
  await addToEval(page, first, { name: suite });
  await expect(page.getByText(`Added to ${suite}: 1 case now.`)).toBeVisible();
  const second = await send(page, `whoami second ${id}`);
  await finished(second);
  await addToEval(page, second, { file }, (y) => y.replace(/reference: .*/, 'reference: Paris is the capital of France.'));
  await expect(page.getByText(`Added to ${suite}: 2 cases now.`)).toBeVisible();

  // Run it from the Evaluations page.
  await page.getByRole('button', { name: 'Evaluations' }).click();
  await runSuite(page, file);
  const run = page.getByTestId('eval-run');
  await expect(run.getByRole('heading', { level: 2 })).toHaveText(suite);
  await expect(run.getByTestId('eval-run-state')).toHaveText('Completed', { timeout: 60_000 });
  await expect(run.getByTestId('eval-run-total')).toContainText('1/2');
  const matrix = page.getByTestId('eval-matrix');
  const cells = (c: string) => matrix.locator(`tr[data-case="${c}"] .cell`);
  await expect(cells(`whoami-first-${id}`)).toHaveText([/Passed/]);
  await expect(cells(`whoami-second-${id}`)).toHaveText([/Failed/]);
  await cells(`whoami-second-${id}`).focus();
  await expect(page.getByTestId('eval-why')).toContainText('similar_to');
  // Found by name: the other evaluation specs make runs beside this one,
  // so this run need not be the newest.
  const runs = page.getByRole('navigation', { name: 'Runs' }).getByRole('link');
  await expect(runs.filter({ hasText: suite })).toHaveCount(1);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await audit(page, 'evals-window-run', scheme);
    await shot(page, `browser-evals-run-${scheme}.png`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  // The README's picture: the run alone, the Run panel folded away.
  await page.getByRole('button', { name: /Run a suite/ }).click();
  await expect(page.getByRole('region', { name: 'Run a suite' })).toBeHidden();
  await cells(`whoami-second-${id}`).focus();
  await shot(page, 'browser-evals-matrix.png');

  // The failing result is a turn like any other: what the model said is there.
  await matrix.locator(`tr[data-case="whoami-second-${id}"] a.cell`).click();
  await expect(page).toHaveURL(/#\/s\/[^/]+\/t\/[^/]+$/);
  await expect(page.getByRole('article', { name: 'Turn 1', exact: true })).toContainText('Answered by fakellm as smoke-model.');

  // Replayed offline from the run's recordings: the same results, compared.
  await page.goBack();
  await expect(page.getByTestId('eval-matrix')).toBeVisible();
  await runSuite(page, file, 'replay');
  await expect(run.getByTestId('eval-run-state')).toHaveText('Completed', { timeout: 60_000 });
  await expect(run).toContainText('replay of');
  await expect(cells(`whoami-first-${id}`)).toHaveText([/Passed/]);
  await expect(cells(`whoami-second-${id}`)).toHaveText([/Failed/]);
  await page.getByTestId('eval-compare').selectOption({ index: 1 });
  const diff = page.getByTestId('eval-diff');
  await expect(diff.getByTestId('eval-diff-regressions')).toHaveText('0 regressions');
  await expect(diff.getByTestId('eval-diff-same')).toHaveText('1 passed in both');
  await expect(diff.locator('tbody tr[data-change="still"]')).toHaveCount(1);
  await shot(page, 'browser-evals-window-diff.png');

  // A slow case, stopped from the page while it streams: kept cancelled.
  await page.getByRole('button', { name: 'Back to the run' }).click();
  await page.getByRole('navigation', { name: 'Session list' }).getByText(`whoami first ${id}`).first().click();
  await addToEval(page, page.getByRole('article', { name: 'Turn 1', exact: true }), { name: `Slow ${id}` }, (y) =>
    y.replace(`whoami first ${id}`, `slow please ${id}`),
  );
  await page.getByRole('button', { name: 'Evaluations' }).click();
  const panel = await runSuite(page, `slow-${id}.yaml`);
  const going = panel.getByRole('list', { name: 'Runs in progress' });
  await expect(going).toContainText(`Slow ${id}`);
  await expect(run.getByTestId('eval-run-state')).toHaveText('Running');
  await going.getByRole('button', { name: /Stop/ }).click();
  await expect(run.getByTestId('eval-run-state')).toHaveText('Cancelled', { timeout: 30_000 });
  await expect(cells(`whoami-first-${id}`)).toHaveText([/Cancelled/]);
  await expect(going).toBeHidden();

  // The sessions the runs made stay out of the sidebar until asked for.
  await page.reload();
  const list = page.getByRole('navigation', { name: 'Session list' });
  const evalSession = list.locator('li.item').filter({ hasText: `Slow ${id} · whoami-first-${id}` });
  await expect(list.getByText(`whoami first ${id}`).first()).toBeVisible();
  await expect(evalSession).toHaveCount(0);
  await page.getByRole('button', { name: 'Show evaluation sessions' }).click();
  await expect(evalSession.first()).toBeVisible();
  await expect(evalSession.first().getByText('eval', { exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'Show evaluation sessions' }).click();
  await expect(evalSession).toHaveCount(0);
});
