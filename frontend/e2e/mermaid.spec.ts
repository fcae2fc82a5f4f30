// Mermaid diagrams (fakellm's "mermaid diagram", "broken mermaid" and
// "hostile mermaid" answers, backend/llm/llmtest/cmd/fakellm/mermaid.go):
// a ```mermaid block is drawn as a diagram once its fence closes, with no
// error shown while it streams; its source is one key press away; the
// drawing is the same after a reload and follows the theme; a source that
// does not parse names its line; a diagram whose click directives and
// labels try to run script or leave the app does nothing (the fixtures
// fail a test on any dialog, CSP report or off-site request). mermaid
// itself is loaded only when the first diagram appears.
import { answer, E2E_URL, expect, finished, newSession, openApp, send, shot, test, uid } from './fixtures';

interface Seen {
  mermaidErrors: number;
}

test('a diagram draws when its block closes, toggles to its source by keyboard, and draws the same after a reload', async ({
  page,
  requests,
}) => {
  await newSession(page);
  // Count any error a diagram showed while the answer streamed.
  await page.evaluate(() => {
    const w = window as unknown as Seen;
    w.mermaidErrors = 0;
    new MutationObserver(() => {
      if (document.querySelector('.mermaid-view [role="alert"]')) w.mermaidErrors++;
    }).observe(document, { subtree: true, childList: true });
  });
  const chunksBefore = requests.filter((u) => /\/assets\/mermaid\.core-/.test(u)).length;
  expect(chunksBefore, 'mermaid loaded before any diagram').toBe(0);

  const message = `Draw a mermaid diagram ${uid()}`;
  const turn = await send(page, message);
  await finished(turn);
  const view = turn.locator('.mermaid-view');
  await expect(view).toHaveAttribute('data-state', 'drawn');
  const svg = view.getByRole('img', { name: 'Mermaid diagram' }).locator('svg');
  await expect(svg).toBeVisible();
  const labels = await svg.locator('text').allTextContents();
  // A long label wraps onto lines of its own (tspans): compared without spaces.
  for (const l of ['Question', 'Need data?', 'Query the table', 'Answer'])
    expect(labels.join('').replace(/\s/g, '')).toContain(l.replace(/\s/g, ''));
  expect(await page.evaluate(() => (window as unknown as Seen).mermaidErrors), 'errors shown while streaming').toBe(0);
  expect(
    requests.some((u) => /\/assets\/mermaid\.core-/.test(u)),
    'mermaid loaded with the first diagram',
  ).toBe(true);
  await expect(answer(turn).last()).toContainText('That is all.');
  // The drawing is inert: no link, script or foreign object.
  expect(await svg.locator('a, script, foreignObject, image').count()).toBe(0);
  await shot(page, 'browser-mermaid-light.png');

  // The theme: drawn again in dark.
  const lightFill = await svg
    .locator('.node rect')
    .first()
    .evaluate((r) => getComputedStyle(r).fill);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect
    .poll(() =>
      svg
        .locator('.node rect')
        .first()
        .evaluate((r) => getComputedStyle(r).fill),
    )
    .not.toBe(lightFill);
  // Its styles survived the sanitizer (an emptied <style> draws black shapes).
  expect((await svg.locator('style').first().textContent())?.length ?? 0).toBeGreaterThan(500);
  await shot(page, 'browser-mermaid-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  // The source, by keyboard: the toggle takes Enter and Space.
  const toggle = view.getByRole('button', { name: 'Source' });
  await toggle.focus();
  await page.keyboard.press('Enter');
  await expect(toggle).toHaveAttribute('aria-pressed', 'true');
  await expect(view.locator('pre.src code')).toHaveText(/^flowchart TD\n {2}A\[Question\] --> B\{Need data\?\}/);
  await expect(view.getByRole('img', { name: 'Mermaid diagram' })).toBeHidden();
  await expect(toggle).toBeFocused();
  await page.keyboard.press('Space');
  await expect(toggle).toHaveAttribute('aria-pressed', 'false');
  await expect(svg).toBeVisible();
  await expect(view.getByRole('button', { name: 'Copy SVG' })).toBeEnabled();

  // A reload reads the turn back from the store: the same diagram.
  await openApp(page, E2E_URL);
  await page.getByRole('navigation', { name: 'Session list' }).getByText(message).click();
  const again = page.getByRole('article', { name: 'Turn 1', exact: true });
  const svgAgain = again.locator('.mermaid-view[data-state="drawn"] svg');
  await expect(svgAgain).toBeVisible();
  expect(await svgAgain.locator('text').allTextContents()).toEqual(labels);
});

test('a diagram that does not parse names its line, with the source below', async ({ page }) => {
  await newSession(page);
  const turn = await send(page, `Show a broken mermaid ${uid()}`);
  await finished(turn);
  const view = turn.locator('.mermaid-view');
  await expect(view).toHaveAttribute('data-state', 'error');
  const alert = view.getByRole('alert');
  await expect(alert).toContainText('This diagram could not be drawn.');
  await expect(alert.locator('.why')).toHaveText(/^Line 4: /);
  await expect(view.locator('pre.numbered .bad')).toHaveText('4  C -->> D');
  await expect(view.locator('pre.numbered .ln')).toHaveCount(4);
  await expect(answer(turn).last()).toContainText('That is all.');
  await shot(page, 'browser-mermaid-error.png');
});

test('a diagram whose clicks and labels try to run script does nothing', async ({ page }) => {
  await newSession(page);
  const turn = await send(page, `Show a hostile mermaid ${uid()}`);
  await finished(turn);
  const view = turn.locator('.mermaid-view');
  await expect(view).toHaveAttribute('data-state', /drawn|error/);
  if ((await view.getAttribute('data-state')) === 'drawn') {
    const svg = view.locator('.drawing svg');
    expect(await svg.locator('a, script, foreignObject, image, use').count()).toBe(0);
    const html = await svg.evaluate((s) => s.outerHTML);
    expect(html).not.toMatch(/javascript:|onerror|onclick|alert\(4\)/i);
    // Clicking every node opens nothing (a dialog or a popup would fail the test).
    for (const node of await svg.locator('.node').all()) await node.click({ force: true });
  }
  expect(await page.evaluate(() => document.querySelectorAll('script:not([src])').length)).toBe(0);
  expect(page.context().pages()).toHaveLength(1);
});
