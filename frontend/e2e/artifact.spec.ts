// Artifacts (issue 46): fakellm's "artifact vN" answers an ```html block,
// a page titled "Counter" whose script writes "script ran vN". Three turns
// make three versions of one artifact (its key is its kind); the panel
// shows each in the sealed frame, switches and diffs them, shows the
// source, goes full screen and downloads, all by keyboard. The frame's
// text is read through page.frameLocator: the script ran in there.
import { artifactPanel, frameOf, tabTo, threeVersions } from './artifact';
import { expect, shot, test } from './fixtures';
import type { Locator } from '@playwright/test';

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

  // The diff: v1 from the next (v2): its second item is gone, its 1s came in.
  await tabTo(page, panel.getByRole('button', { name: 'Diff', exact: true }));
  await page.keyboard.press('Enter');
  const diff = panel.getByTestId('artifact-diff');
  await expect(panel.getByLabel('Changes in v1 from')).toHaveValue('1');
  await expect.poll(() => marked(diff, 'del')).toContain('item 2');
  await expect.poll(() => marked(diff, 'ins')).toContain('1');
  // v3 against v1, picked in the select by keyboard.
  await page.keyboard.press(']');
  await page.keyboard.press(']');
  await expect(version).toHaveText('v3 / v3');
  const against = panel.getByLabel('Changes in v3 from');
  await tabTo(page, against);
  await against.selectOption({ label: 'v1 · turn 1' });
  await expect.poll(() => marked(diff, 'ins')).toMatch(/item 2.*item 3|3/s);
  await expect.poll(() => marked(diff, 'del')).toContain('1');
  await expect(panel.getByTestId('artifact-diff-summary')).toHaveText(/\d+ added, \d+ removed/);
  await shot(page, 'artifact-diff-light.png');

  // The source.
  await tabTo(page, panel.getByRole('button', { name: 'Source', exact: true }));
  await page.keyboard.press('Enter');
  await expect(panel.getByTestId('artifact-source')).toContainText("textContent = 'script ran v3'");

  // Download: the source, named from its title and version.
  const dl = page.waitForEvent('download');
  await tabTo(page, panel.getByRole('button', { name: /^Download/ }));
  await page.keyboard.press('Enter');
  expect((await dl).suggestedFilename()).toBe('counter-v3.html');

  // Full screen, and Esc to leave it, then Esc to close; focus goes back.
  await tabTo(page, panel.getByRole('button', { name: 'Result', exact: true }));
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

/** The text of a diff's marks of one kind (del or ins), joined, without what says them to a screen reader. */
async function marked(diff: Locator, tag: 'del' | 'ins'): Promise<string> {
  return (await diff.locator(tag).allTextContents()).map((t) => t.replace(/^\[(deleted|inserted): |\]$/g, '')).join(' ');
}
