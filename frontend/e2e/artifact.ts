// Helpers of the artifact tests (artifact.spec.ts, a11y.spec.ts): fakellm's
// "artifact vN" answers (backend/llm/llmtest/cmd/fakellm/artifactframe.go),
// the panel and its sealed frame.
import { finished, newSession, send } from './fixtures';
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
