// Artifacts (issue 46): fakellm's "artifact vN" answers an ```html block,
// a page titled "Counter" whose script writes "script ran vN". Three turns
// make three versions of one artifact (its key is its kind); the panel
// shows each in the sealed frame, switches and diffs them, shows the
// source, goes full screen and downloads, all by keyboard. The frame's
// text is read through page.frameLocator: the script ran in there.
import { expect, finished, newSession, send, shot, test, type Watch } from './fixtures';
import type { Locator, Page } from '@playwright/test';

export function artifactPanel(page: Page): Locator {
  return page.getByRole('complementary', { name: 'Artifact' });
}

export function frameOf(page: Page) {
  return page.frameLocator('[data-testid="artifact-frame"]');
}

/** Sends the three versions in a new session; returns the turns. */
export async function threeVersions(page: Page): Promise<Locator[]> {
  await newSession(page);
  const turns: Locator[] = [];
  for (const n of [1, 2, 3]) {
    const turn = await send(page, `Make the counter, artifact v${n}`);
    await finished(turn);
    turns.push(turn);
  }
  return turns;
}

test('an artifact with three versions: run in the sealed frame, switched, diffed, full screen, by keyboard only', async ({
  page,
  watch,
}) => {
  const turns = await threeVersions(page);
  // The html block offers itself; Enter on it opens the panel at its version.
  const open = turns[1]!.getByRole('button', { name: 'Open as artifact' });
  await expect(open).toHaveCount(1);
  await open.focus();
  await page.keyboard.press('Enter');
  const panel = artifactPanel(page);
  await expect(panel).toBeFocused();
  await expect(panel.getByRole('heading', { level: 2 })).toHaveText('Counter');
  const version = panel.getByTestId('artifact-version');
  await expect(version).toHaveText('v2 / v3');
  // Its own script ran, inside the frame.
  await expect(frameOf(page).locator('#out')).toHaveText('script ran v2');
  await expect(frameOf(page).locator('h1')).toHaveText('Counter version 2');
  const frame = panel.locator('iframe');
  await expect(frame).toHaveAttribute('sandbox', 'allow-scripts');
  await expect(frame).toHaveAttribute('referrerpolicy', 'no-referrer');
  await expect(frame).toHaveAttribute('src', '/artifact.html');

  // ] and [ switch versions; the frame runs each.
  await page.keyboard.press(']');
  await expect(version).toHaveText('v3 / v3');
  await expect(frameOf(page).locator('#out')).toHaveText('script ran v3');
  await shot(page, 'artifact-light.png');

  // The switcher's buttons: Tab to "Previous version", Enter twice; at v1
  // it is disabled and focus moves to "Next version", not to the body.
  const prev = panel.getByRole('button', { name: 'Previous version' });
  await tabTo(page, prev);
  await page.keyboard.press('Enter');
  await expect(version).toHaveText('v2 / v3');
  await page.keyboard.press('Enter');
  await expect(version).toHaveText('v1 / v3');
  await expect(prev).toBeDisabled();
  await expect(panel.getByRole('button', { name: 'Next version' })).toBeFocused();
  await expect(frameOf(page).locator('#out')).toHaveText('script ran v1');

  // The diff: v1 against the next (v2): "item 2" came in, "1" went.
  await tabTo(page, panel.getByRole('button', { name: 'Diff' }));
  await page.keyboard.press('Enter');
  const diff = panel.getByTestId('artifact-diff');
  await expect(diff.locator('ins')).toContainText(['item 2']);
  await expect(panel.getByLabel('Changes in v1 from')).toHaveValue('1');
  // v3 against v1, picked in the select by keyboard.
  await page.keyboard.press(']');
  await page.keyboard.press(']');
  await expect(version).toHaveText('v3 / v3');
  const against = panel.getByLabel('Changes in v3 from');
  await tabTo(page, against);
  await against.selectOption({ label: 'v1 · turn 1' });
  await expect(diff.locator('ins')).toContainText(['3']);
  await expect(diff).toContainText('item 3');
  await expect(diff.locator('del').first()).toContainText('1');
  await shot(page, 'artifact-diff-light.png');

  // The source.
  await tabTo(page, panel.getByRole('button', { name: 'Source' }));
  await page.keyboard.press('Enter');
  await expect(panel.getByTestId('artifact-source')).toContainText("textContent = 'script ran v3'");

  // Download: the source, named from its title and version.
  const dl = page.waitForEvent('download');
  await tabTo(page, panel.getByRole('button', { name: /^Download/ }));
  await page.keyboard.press('Enter');
  expect((await dl).suggestedFilename()).toBe('counter-v3.html');

  // Full screen, and Esc to leave it, then Esc to close; focus goes back.
  await tabTo(page, panel.getByRole('button', { name: 'Result' }));
  await page.keyboard.press('Enter');
  await tabTo(page, panel.getByRole('button', { name: 'Full screen' }));
  await page.keyboard.press('Enter');
  await expect(panel).toHaveClass(/full/);
  const box = await panel.boundingBox();
  expect(box?.width).toBe(page.viewportSize()?.width);
  await expect(frameOf(page).locator('#out')).toHaveText('script ran v3');
  await shot(page, 'artifact-full.png');
  await page.keyboard.press('Escape');
  await expect(panel).not.toHaveClass(/full/);
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  await expect(open).toBeFocused();
  expect(watch.frameOffsite).toEqual([]);
});

test('the artifact panel in dark', async ({ page }) => {
  const turns = await threeVersions(page);
  await page.emulateMedia({ colorScheme: 'dark' });
  await turns[2]!.getByRole('button', { name: 'Open as artifact' }).click();
  await expect(frameOf(page).locator('#out')).toHaveText('script ran v3');
  await shot(page, 'artifact-dark.png');
});

/**
 * Presses Tab (or Shift+Tab, when the target comes before what has focus)
 * until the locator has focus, at most 40 times.
 */
export async function tabTo(page: Page, target: Locator): Promise<void> {
  const back = await target.evaluate((el) => {
    const at = document.activeElement;
    return !!at && at !== document.body && !!(el.compareDocumentPosition(at) & Node.DOCUMENT_POSITION_FOLLOWING);
  });
  for (let i = 0; i < 40; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${target}`);
}

export type { Watch };
