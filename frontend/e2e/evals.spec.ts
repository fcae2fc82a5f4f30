// The Evaluations page over runs `agentdeck eval` made against the
// scripted models: the newest run is shown with its matrix (each result by
// icon and word, why it failed on focus), a result opens its turn, and a
// comparison with the earlier run marks the regression; in light and dark,
// with no serious axe violation, and at a phone's width.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { audit } from './axe';
import { expect, openApp, shot, test, uid } from './fixtures';

const BIN = process.env.E2E_BIN!;
const DB = process.env.E2E_DB!;

/** A suite of two cases on the two scripted providers; `want` is what "think" must contain. */
function suite(name: string, want: string): string {
  return `name: ${name}
models: [fake/smoke-model, second/second-model]
cases:
  - id: whoami
    prompt: whoami
    assert:
      - contains: fakellm
  - id: think
    prompt: Please think about what six times seven is.
    assert:
      - contains: "${want}"
`;
}

/** Runs a suite with agentdeck eval; it exits 1 when a case did not pass. */
function runEval(yaml: string) {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-eval-'));
  const file = join(dir, 'suite.yaml');
  writeFileSync(file, yaml);
  try {
    execFileSync(BIN, ['eval', file, '--db', DB, '--concurrency', '4'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 90_000 });
  } catch (err) {
    if ((err as { status?: number }).status !== 1) throw err;
  }
}

test('the Evaluations page shows a run, opens a result, and compares two runs', async ({ page }) => {
  test.setTimeout(180_000);
  const name = `geo-${uid()}`;
  runEval(suite(name, '42'));
  runEval(suite(name, '43'));

  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await openApp(page);
    await page.getByRole('button', { name: 'Evaluations' }).click();
    await expect(page).toHaveURL(/#\/evals$/);
    // Other tests make runs at the same time: this suite's newest run is
    // found by its name, not by being first.
    const runs = page.getByRole('navigation', { name: 'Runs' }).getByRole('link');
    const mine = runs.filter({ hasText: name }).first();
    await mine.click();
    await expect(mine).toHaveAttribute('aria-current', 'page');
    await expect(mine).toContainText('1/4');

    const matrix = page.getByTestId('eval-matrix');
    const row = (id: string) => matrix.locator(`tr[data-case="${id}"] .cell`);
    await expect(row('whoami')).toHaveText(['Passed', 'Failed']);
    await expect(row('think')).toHaveText(['Failed', 'Failed']);
    await row('think').first().focus();
    await expect(page.getByTestId('eval-why')).toContainText('contains: the answer does not contain "43"');
    await expect(page.getByTestId('eval-chart-pass-rate').locator('svg.marks')).toBeVisible();
    await audit(page, 'evals', scheme);
    await shot(page, `browser-evals-${scheme}.png`);
  }

  // Against the run before: "think" passed there and fails now.
  await page.getByRole('combobox', { name: 'Compare with…' }).selectOption({ index: 1 });
  const diff = page.getByTestId('eval-diff');
  await expect(diff.getByTestId('eval-diff-regressions')).toHaveText('2 regressions');
  const first = diff.locator('tbody tr').first();
  await expect(first).toHaveAttribute('data-change', 'regression');
  await expect(first).toContainText('think');
  await audit(page, 'evals-diff', 'dark');
  await shot(page, 'browser-evals-diff.png');

  // A result opens the turn it ran as.
  await page.getByRole('button', { name: /Back to the run/ }).click();
  await matrixRowCell(page, 'whoami').click();
  await expect(page).toHaveURL(/#\/s\/[^/]+\/t\/[^/]+$/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${name} · whoami · fake/smoke-model #1`);
  await expect(page.getByRole('article', { name: 'Turn 1', exact: true })).toContainText('Answered by fakellm as smoke-model.');

  // At a phone's width the page is whole, below the sessions.
  await page.goBack();
  await page.setViewportSize({ width: 360, height: 740 });
  await expect(page.getByTestId('eval-matrix')).toBeVisible();
  const box = await page.getByTestId('evals-page').boundingBox();
  expect(box?.width).toBe(360);
  await shot(page, 'browser-evals-narrow.png');
});

function matrixRowCell(page: Page, id: string) {
  return page.getByTestId('eval-matrix').locator(`tr[data-case="${id}"] a.cell`).first();
}
