// An evaluation run started in one window, watched from another: window A
// runs a suite from the Evaluations page; window B, a second browser
// context open on the same page and never reloaded, sees the run appear
// in its list, its passed count go up as cases end, the matrix fill in,
// and, when A stops it, the run cancelled. Everything B sees comes from
// the server's event stream (eval_progress), not from A.
//
// The suite runs one case at a time, in file order, on the scripted model:
// "whoami" answers at once, each "slow start" after 4 s of silence, and
// "slow" streams for minutes, until A stops it. So each state B is asked
// for lasts about 4 s (the last until Stop), and no wait is a sleep.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, openApp, test, uid } from './fixtures';

const DB = process.env.E2E_DB!;

/** Writes a suite file into the evaluations folder beside the database, where the Run panel finds it. */
function writeSuite(file: string, name: string) {
  const dir = join(dirname(DB), 'evals');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, file),
    `name: ${name}
models: [fake/smoke-model]
cases:
  - id: quick
    prompt: whoami
    assert:
      - contains: fakellm
  - id: start-a
    prompt: A slow start, please.
    assert:
      - contains: Loaded at last
  - id: start-b
    prompt: Another slow start, please.
    assert:
      - contains: Loaded at last
  - id: endless
    prompt: Answer slow please.
    assert:
      - contains: word1999
`,
  );
}

/** Opens the Evaluations page with the Run panel shown. */
async function openEvals(page: Page) {
  await page.getByRole('button', { name: 'Evaluations' }).click();
  await expect(page).toHaveURL(/#\/evals$/);
  // Once the runs are read: the page then opens or folds the panel itself.
  await expect(page.getByTestId('eval-runs').or(page.getByTestId('evals-empty'))).toBeVisible();
  const toggle = page.getByRole('button', { name: /Run a suite/ });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  const panel = page.getByRole('region', { name: 'Run a suite' });
  await expect(panel).toBeVisible();
  return panel;
}

test('a run started in one window shows live in another, down to its Stop', async ({ page: a, browser }) => {
  test.setTimeout(90_000);
  const id = uid();
  const name = `Two windows ${id}`;
  const file = `two-windows-${id}.yaml`;
  writeSuite(file, name);

  // Window B: its own browser context (its own cookie, storage and event
  // stream), let in by the token as the harness lets A in.
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const b = await ctx.newPage();
  const errors: string[] = [];
  const dialogs: string[] = [];
  b.on('pageerror', (e) => errors.push(e.message));
  b.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss().catch(() => {});
  });
  try {
    await openApp(b);
    const panelB = await openEvals(b);
    // B has read the suites (so it is all loaded) before A starts.
    await expect(panelB.getByRole('combobox', { name: 'Suite' }).locator(`option[value="${file}"]`)).toHaveCount(1);

    // Window A starts the run.
    const panelA = await openEvals(a);
    await panelA.getByRole('combobox', { name: 'Suite' }).selectOption(file);
    await panelA.getByRole('combobox', { name: 'Calls' }).selectOption('record');
    await panelA.getByRole('button', { name: /Run$/ }).click();
    await expect(a).toHaveURL(/#\/evals\/[^/]+$/);
    const runId = decodeURIComponent(a.url().match(/#\/evals\/([^/]+)$/)![1]!);

    // B, not reloaded: the run is in its list, and its passed count goes up.
    // Other tests make runs meanwhile, so it is found by its id, not its place.
    const link = b.getByRole('navigation', { name: 'Runs' }).locator(`a[data-run="${runId}"]`);
    await expect(link).toContainText(name);
    const passed = link.locator('.count strong');
    await expect(passed).toHaveText(/^1\/\d$/); // quick passed; start-a may be counted running
    await expect(link).toContainText('of 4');

    // B opens it: the matrix holds what has ended, and fills in as more do.
    await link.click();
    await expect(b).toHaveURL(new RegExp(`#/evals/${runId}$`));
    const run = b.getByTestId('eval-run');
    await expect(run).toHaveAttribute('data-run', runId);
    await expect(run.getByRole('heading', { level: 2 })).toHaveText(name);
    await expect(run.getByTestId('eval-run-state')).toHaveText('Running');
    const matrix = b.getByTestId('eval-matrix');
    const cell = (c: string) => matrix.locator(`tr[data-case="${c}"] .cell`);
    await expect(cell('quick')).toHaveText([/Passed/]);
    // start-b cannot end before 4 s after start-a: B sees it unfinished first.
    await expect(cell('start-b')).not.toHaveText([/Passed/]);
    await expect(cell('endless')).toHaveText(['–']);
    await expect(cell('start-a')).toHaveText([/Passed/]);
    await expect(passed).toHaveText(/^2\/\d$/);
    await expect(cell('start-b')).toHaveText([/Passed/]);
    await expect(passed).toHaveText(/^3\/\d$/);
    await expect(run.getByTestId('eval-run-total')).toContainText('3/');
    await expect(cell('endless')).not.toHaveText([/Passed|Cancelled/]);
    // B's Run panel has it in progress too, with A's Stop beside it.
    const goingB = panelB.getByRole('list', { name: 'Runs in progress' }).getByRole('listitem').filter({ hasText: name });
    await expect(goingB).toContainText('3 of 4 done · 3 passed');

    // A stops it; B, still not reloaded, shows it cancelled.
    const goingA = panelA.getByRole('list', { name: 'Runs in progress' }).getByRole('listitem').filter({ hasText: name });
    await goingA.getByRole('button', { name: /Stop/ }).click();
    await expect(run.getByTestId('eval-run-state')).toHaveText('Cancelled', { timeout: 30_000 });
    await expect(cell('endless')).toHaveText([/Cancelled/]);
    await expect(cell('quick')).toHaveText([/Passed/]);
    await expect(link).toContainText('Cancelled');
    await expect(passed).toHaveText('3/4');
    await expect(goingB).toHaveCount(0);
    await expect(goingA).toHaveCount(0);
    // A, which stopped it, agrees.
    await expect(a.getByTestId('eval-run').getByTestId('eval-run-state')).toHaveText('Cancelled');

    expect(dialogs, 'dialogs opened by window B').toEqual([]);
    expect(errors, 'uncaught errors in window B').toEqual([]);
  } finally {
    await ctx.close();
  }
});
