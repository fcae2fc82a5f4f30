// Time travel, keyboard only, against the real backend: fakellm's "write a
// file named NAME" calls write_file once (allowed here), then answers "The
// tool said:" and the tool's result. "Re-run from here" on the tool card,
// with the result typed over, runs a new version of the turn from that
// step: the recorded model call is served from the recording, the typed
// result is the tool's (nothing is written again, nothing asks), and the
// live call after it repeats it. The new version shows
// the live_from divider, the edited result and its origin in the header,
// and the same after a reload; "What changed" navigates to the diff.
import { composer, expect, finished, OUT, test, uid } from './fixtures';
import type { Locator, Page } from '@playwright/test';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Presses a control with the keyboard: focus (again, if a re-render took it away), then Enter. */
async function press(control: Locator, key = 'Enter') {
  await expect(async () => {
    await control.focus({ timeout: 2_000 });
    await expect(control).toBeFocused({ timeout: 1_000 });
  }).toPass();
  await control.press(key);
}

/** Tabs forward until the control has the focus (at most n presses). */
async function tabTo(page: Page, control: Locator, n = 12) {
  for (let i = 0; i < n; i++) {
    if (await control.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(control).toBeFocused();
}

const edited = 'Nothing was written: the disk is read-only.';

for (const scheme of ['light', 'dark'] as const) {
  test(`re-run from a tool card with an edited result, keyboard only (${scheme})`, async ({ page }) => {
    test.setTimeout(90_000);
    await page.emulateMedia({ colorScheme: scheme });
    await press(page.getByRole('button', { name: 'New session' }));
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('New session');
    const workspace = process.env.E2E_WORKSPACE ?? '';
    expect(workspace, 'E2E_WORKSPACE from the global setup').not.toBe('');
    const file = `tt-${uid()}.txt`;
    await page.getByRole('textbox', { name: 'Workspace folder' }).focus();
    await page.keyboard.type(workspace);
    await page.keyboard.press('Tab');
    // A first turn makes the session, so the one re-run is not its first.
    await composer(page).focus();
    await page.keyboard.type('Please remember this');
    await page.keyboard.press('Enter');
    await finished(page.getByRole('article', { name: 'Turn 1' }));
    await composer(page).focus();
    await page.keyboard.type(`Please write a file named ${file}`);
    await page.keyboard.press('Enter');

    const first = page.getByRole('article', { name: 'Turn 2' });
    await press(
      first.getByRole('region', { name: 'Approval needed for write_file' }).getByRole('button', { name: 'Allow once', exact: true }),
    );
    await finished(first);
    await expect(first.locator('.md')).toContainText(`Finished writing ${file}. The tool said:`);
    const written = statSync(join(workspace, file)).mtimeMs;

    // The tool card's action names its step.
    const rerun = first.getByRole('button', { name: 'Re-run from here (tool result 1: write_file)', exact: true });
    await press(rerun);
    const dialog = page.getByRole('dialog', { name: 'Re-run from here' });
    await expect(dialog).toBeVisible();
    const box = dialog.getByRole('textbox', { name: 'Tool result' });
    await expect(box).toBeFocused();
    await expect(dialog.getByRole('radio', { name: 'What the tool returned' })).toBeChecked();
    await expect(dialog.getByRole('switch', { name: 'No side effects' })).not.toBeChecked();

    // Esc closes and gives the focus back; open it again.
    await page.keyboard.press('Escape');
    await expect(dialog).toBeHidden();
    await expect(rerun).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(box).toBeFocused();

    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(edited);
    await page.screenshot({ path: join(OUT, `browser-rerun-dialog-${scheme}.png`) });
    await tabTo(page, dialog.getByRole('button', { name: 'Run' }));
    await page.keyboard.press('Enter');
    await expect(dialog).toBeHidden();

    // The new version takes the original's place, streaming, and the focus.
    const second = page.getByRole('article', { name: 'Turn 3' });
    await expect(second).toBeFocused();
    await expect(first).toHaveCount(0);
    await expect(second.getByRole('group', { name: 'Versions of this message' })).toContainText('2 / 2');
    const check = async () => {
      const divider = second.getByTestId('live-from');
      await expect(divider).toContainText("Steps above: from turn #2's recording");
      await expect(divider).toContainText('live from tool result 1: write_file');
      await expect(divider).toContainText('(edited: tool result)');
      await expect(second.getByTestId('rerun-origin')).toHaveText(/^Re-run from tool result 1: write_file\s+of #2$/);
      // In the tool card, open or folded.
      await expect(second.locator('pre[aria-label="Result of write_file"]')).toHaveText(edited);
      await expect(second.locator('.md')).toContainText(`Finished writing ${file}. The tool said: ${edited}`);
    };
    await finished(second);
    await check();
    // The typed result stood in for the tool: the file was not written again, and nothing asked.
    expect(statSync(join(workspace, file)).mtimeMs).toBe(written);
    expect(readFileSync(join(workspace, file), 'utf8')).toBe('Written by the fake model.\n');
    await expect(second.getByRole('region', { name: 'Approval needed for write_file' })).toHaveCount(0);
    // The tool card, opened by the keyboard, shows the typed result.
    await press(second.locator('details.tool > summary'));
    await expect(second.getByRole('region', { name: 'Result of write_file' })).toBeVisible();
    await page.screenshot({ path: join(OUT, `browser-rerun-live-${scheme}.png`) });

    // After a reload the same shows, from the store.
    await page.reload();
    await expect(page.getByTestId('version')).toHaveText(/^v\S+/);
    await expect(second).toBeVisible();
    await check();

    // "What changed" goes to the side-by-side diff of the two turns.
    const link = second.getByTestId('live-from').getByRole('link', { name: 'What changed' });
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^#\/diff\/[^/]+\/[^/]+$/);
    // The page goes there (the diff view's own test checks it in detail).
    await page.evaluate(() => {
      const w = window as unknown as { went: string[] };
      w.went = [];
      addEventListener('hashchange', (e) => w.went.push(new URL(e.newURL).hash));
    });
    await press(link);
    await expect.poll(() => page.evaluate(() => (window as unknown as { went: string[] }).went[0] ?? '')).toBe(href);

    // There the edited tool result stands beside the original's, marked,
    // and the same shows after a reload.
    const view = page.getByTestId('diff-page');
    const seeDiff = async () => {
      const row = view.getByTestId('diff-row').filter({ hasText: 'edited' }).first();
      await expect(row).toContainText('write_file');
      // The typed result is marked inserted (the whole of it but its last full stop, which the original's had too).
      await expect(row.locator('td[data-side="b"] ins').first()).toContainText(edited.replace(/\.$/, ''));
      await expect(view.getByTestId('diff-totals')).toBeVisible();
    };
    await seeDiff();
    await page.screenshot({ path: join(OUT, `browser-rerun-diff-${scheme}.png`) });
    await page.reload();
    await seeDiff();
  });
}
