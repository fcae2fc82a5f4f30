// A model that thinks (issue 19): fakellm's "think" streams reasoning for
// about 1.2 s, then answers "The answer is 42.". The reasoning shows live
// under "Thinking…", folds to "Thought for N s" once the answer comes,
// opens on a click, never enters the answer, and a reload shows it the
// same. "slow start" is silent 4 s, so the turn says it waits for the
// model (the backend says so after 3 s) while Stop stays usable.
import type { Page } from '@playwright/test';
import { answer, expect, finished, newSession, openApp, ORIGIN, send, shot, test, uid } from './fixtures';

/**
 * Watches the page, at every change, for a live Thinking block: open under
 * "Thinking…", reasoning on screen, no answer yet. The state lasts about a
 * second, so it is caught in the page as it happens rather than by polling
 * from the test, which a loaded machine can make miss it.
 */
async function watchLive(page: Page) {
  await page.evaluate(() => {
    const lengths: number[] = [];
    (window as unknown as { liveReasoning: number[] }).liveReasoning = lengths;
    new MutationObserver(() => {
      const block = document.querySelector<HTMLDetailsElement>('article [data-testid="thinking"]');
      const text = block?.querySelector<HTMLElement>('[data-testid="reasoning"]');
      const turn = block?.closest('article');
      const answered = [...(turn?.querySelectorAll('.md') ?? [])].some((m) => m.textContent?.trim());
      const live = block?.open && block.querySelector('summary')?.textContent?.trim() === 'Thinking…';
      if (live && text?.checkVisibility() && text.textContent?.startsWith('Let me think') && !answered)
        lengths.push(text.textContent.length);
    }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

/** The lengths of the reasoning seen live, in order. */
function liveLengths(page: Page): Promise<number[]> {
  return page.evaluate(() => (window as unknown as { liveReasoning: number[] }).liveReasoning);
}

async function themed(page: Page, name: string) {
  await page.emulateMedia({ colorScheme: 'light' });
  await shot(page, `browser-${name}-light.png`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, `browser-${name}-dark.png`);
  await page.emulateMedia({ colorScheme: 'light' });
}

test('the reasoning streams live, folds once the answer comes, stays out of it, and a reload shows it the same', async ({ page }) => {
  await newSession(page);
  await watchLive(page);
  const title = `Think about it ${uid()}`;
  const turn = await send(page, title);
  const block = turn.getByTestId('thinking');
  await finished(turn);

  // It was live: "Thinking…" and reasoning on screen before any answer.
  // (How many pieces were seen depends on the machine: a loaded one may
  // paint the turn only once most of the reasoning has come.)
  expect((await liveLengths(page)).length, 'the Thinking block was never seen live').toBeGreaterThan(0);
  const summary = block.locator('summary');
  await expect(summary).toHaveText(/^\s*Thought for \d+ s\s*$/);
  await expect(block).not.toHaveAttribute('open');
  await expect(turn.getByTestId('reasoning')).toBeHidden();
  const folded = (await summary.textContent())!.trim();

  // The answer is the answer alone.
  const md = answer(turn);
  await expect(md).toHaveText('The answer is 42.');
  expect(await md.textContent()).not.toMatch(/step by step|forty-two|briefly/);
  await themed(page, 'thinking-folded');

  // Opened by keyboard: the whole reasoning.
  await summary.focus();
  await page.keyboard.press('Enter');
  await expect(block).toHaveAttribute('open', '');
  await expect(turn.getByTestId('reasoning')).toHaveText(/^Let me think about it step by step\. .* I will say so briefly\.$/);
  await themed(page, 'thinking-open');

  // A reload rebuilds it from the stored events: folded, with the same text.
  await openApp(page, `${ORIGIN}/`);
  await page.getByRole('navigation', { name: 'Session list' }).getByText(title).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  const again = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(again.getByTestId('thinking').locator('summary')).toHaveText(folded);
  await expect(again.getByTestId('thinking')).not.toHaveAttribute('open');
  await expect(answer(again)).toHaveText('The answer is 42.');
});

test('a silent model call says it waits for the model, and Stop stays usable', async ({ page }) => {
  await newSession(page);
  // Records, as the page changes, every text the waiting note shows and
  // whether Stop was on screen beside it: the note lasts about a second.
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { waitingSeen: string[] }).waitingSeen = seen;
    new MutationObserver(() => {
      const note = document.querySelector('[data-testid="waiting"]');
      const text = note?.textContent?.replace(/\s+/g, ' ').trim();
      const status = note?.querySelector('[role="status"]')?.textContent?.trim();
      const stop = [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Stop');
      if (text) seen.push(`${status ?? ''}|${text}${stop ? ' [stop]' : ''}`);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  // The observer is the record: polling the note from here raced its end
  // (it lasts about a second) on a loaded machine.
  const turn = await send(page, `A slow start please ${uid()}`);
  await finished(turn);
  await expect(answer(turn)).toHaveText('Loaded at last: here is the answer.');
  const seen = await page.evaluate(() => (window as unknown as { waitingSeen: string[] }).waitingSeen);
  expect(seen.length, 'the waiting note never showed').toBeGreaterThan(0);
  // Announced once, without the seconds; shown with them, beside Stop.
  expect(seen[0]).toMatch(/^Waiting for the model \(it may be loading\)…\|Waiting for the model \(it may be loading\)… \d+ s \[stop\]$/);
  await expect(turn.getByTestId('waiting')).toHaveCount(0);
});
