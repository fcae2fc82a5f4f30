// The window's layout when it is small or what it shows is wide: the
// sidebar folds to a rail (its button and Ctrl+B, kept across a reload, and
// by itself while the window is too narrow for it beside the diagnostics
// panel), so at 800 px with diagnostics open the conversation keeps a
// usable width; and the evaluation comparison's table fits its column at
// 1280 px, its last column reachable.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, finished, newSession, openApp, ORIGIN, send, shot, test, uid } from './fixtures';
import { audit } from './axe';
import { runSuite } from './evalsuite';

/** The width of the conversation's column. */
async function chatWidth(page: Page): Promise<number> {
  return (await page.locator('[data-region="main"]').boundingBox())!.width;
}

test('the sidebar folds by its button and Ctrl+B, is remembered, and folds itself at 800 px beside diagnostics', async ({ page }) => {
  const toggle = page.getByRole('button', { name: 'Sidebar', exact: true });
  const list = page.getByRole('navigation', { name: 'Session list' });
  const rail = page.getByTestId('sidebar-rail');
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(rail).toBeHidden();

  // The button: the sidebar goes, the rail comes, and focus moves to the
  // rail's button (the one pressed is gone).
  await toggle.click();
  await expect(list).toBeHidden();
  await expect(rail).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(toggle).toBeFocused();
  expect((await rail.boundingBox())!.width).toBeLessThan(60);
  // Kept across a reload.
  await openApp(page, `${ORIGIN}/`);
  await expect(rail).toBeVisible();
  await expect(list).toBeHidden();
  // Enter on the rail's button shows it again, focus on the sidebar's button.
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(list).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await expect(toggle).toBeFocused();
  // Ctrl+B folds and shows it from anywhere.
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.keyboard.press('Control+b');
  await expect(rail).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Message' })).toBeFocused();
  await page.keyboard.press('Control+b');
  await expect(list).toBeVisible();
  // Ctrl+K while folded shows the sidebar and its search.
  await page.keyboard.press('Control+b');
  await page.keyboard.press('Control+k');
  await expect(page.getByRole('searchbox', { name: 'Search sessions' })).toBeFocused();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');

  // At 800 px with a turn's diagnostics open, the sidebar folds by itself
  // and the conversation keeps at least 420 px.
  await page.setViewportSize({ width: 800, height: 700 });
  await newSession(page);
  const turn = await send(page, `layout ${uid()}`);
  await finished(turn);
  await page.keyboard.press('Control+Shift+D');
  const panel = page.getByRole('complementary', { name: 'Diagnostics' });
  await expect(panel).toBeVisible();
  await expect(rail).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  expect(await chatWidth(page)).toBeGreaterThanOrEqual(420);
  expect((await panel.boundingBox())!.x + (await panel.boundingBox())!.width).toBeLessThanOrEqual(800);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await audit(page, 'layout-800-diagnostics', scheme);
    await shot(page, `browser-layout-800-${scheme}.png`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  // The person may still show it; closing the panel ends the narrow spell.
  await toggle.click();
  await expect(list).toBeVisible();
  await panel.getByRole('button', { name: 'Close diagnostics' }).click();
  await expect(list).toBeVisible();
  await page.keyboard.press('Control+Shift+D');
  await expect(rail).toBeVisible();
  // At 900 px too; at 1280 px there is room for all three.
  await page.setViewportSize({ width: 900, height: 700 });
  expect(await chatWidth(page)).toBeGreaterThanOrEqual(420);
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(list).toBeVisible();
  expect(await chatWidth(page)).toBeGreaterThanOrEqual(420);
});

/** Writes a suite whose cases all fail, with long names, into the evaluations folder. */
function writeWideSuite(file: string, name: string) {
  const dir = join(dirname(process.env.E2E_DB!), 'evals');
  mkdirSync(dir, { recursive: true });
  const cases = Array.from(
    { length: 10 },
    (_, i) => `  - id: a-case-with-a-long-descriptive-identifier-number-${i}
    prompt: whoami
    assert:
      - contains: never-said-${i}
`,
  ).join('');
  writeFileSync(
    join(dir, file),
    `name: ${name}\nmodels: [fake/smoke-model-with-a-long-name-for-the-layout-v1.2-instruct]\ncases:\n${cases}`,
  );
}

/** Runs file to its end and folds the Run panel again. */
async function runSuiteToEnd(page: Page, file: string, capture: 'record' | 'replay') {
  await runSuite(page, file, capture);
  await expect(page.getByTestId('eval-run').getByTestId('eval-run-state')).toHaveText('Completed', { timeout: 60_000 });
  await page.getByRole('button', { name: /Run a suite/ }).click();
}

test('the evaluation comparison fits at 1280 px: its last column is in view', async ({ page }) => {
  test.setTimeout(180_000);
  const id = uid();
  const file = `wide-${id}.yaml`;
  writeWideSuite(file, `Wide ${id}`);
  await page.getByRole('button', { name: 'Evaluations' }).click();
  await runSuiteToEnd(page, file, 'record');
  await runSuiteToEnd(page, file, 'replay');
  await page.getByTestId('eval-compare').selectOption({ index: 1 });
  const diff = page.getByTestId('eval-diff');
  const frame = diff.getByRole('region', { name: 'Results that differ' });
  await expect(frame.locator('tbody tr')).toHaveCount(10);
  const box = await frame.evaluate((el) => {
    const f = el.getBoundingClientRect();
    const last = el.querySelector('thead th:last-child')!.getBoundingClientRect();
    const cells = Array.from(el.querySelectorAll('tbody tr > :last-child'), (c) => c.getBoundingClientRect().right);
    return {
      frameRight: f.right,
      frameBottom: f.bottom,
      lastRight: last.right,
      cellsRight: Math.max(...cells),
      scroll: el.scrollWidth - el.clientWidth,
      width: innerWidth,
      height: innerHeight,
    };
  });
  // No column is past the frame's edge, or past the window's.
  expect(box.lastRight, JSON.stringify(box)).toBeLessThanOrEqual(box.frameRight + 0.5);
  expect(box.cellsRight, JSON.stringify(box)).toBeLessThanOrEqual(box.frameRight + 0.5);
  expect(box.frameRight, JSON.stringify(box)).toBeLessThanOrEqual(box.width);
  expect(box.scroll, JSON.stringify(box)).toBeLessThanOrEqual(0);
  await shot(page, 'browser-evals-diff-1280.png');
});
