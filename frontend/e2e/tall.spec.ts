// Tall turns: fakellm's "tall answer N" streams a 120-line code block, one
// line every 80 ms (backend/llm/llmtest/cmd/fakellm/tall.go), so three of
// them make the conversation many screens long and the virtual list
// (components/main/VirtualList.svelte) leaves the first out of the page.
// Each turn appears, the view follows the newest while it streams (unless
// the person scrolled up, when it stays where they put it), and after a
// reload all three render.
import { expect, finished, newSession, send, shot, test } from './fixtures';
import type { Locator, Page } from '@playwright/test';

function feed(page: Page): Locator {
  return page.getByRole('feed', { name: 'Conversation' });
}

/** The line numbers "tall N line K" streamed so far into the turn's code block. */
function lastLine(turn: Locator, n: number): Promise<number> {
  return turn.evaluate((el, n) => {
    const all = [...(el.textContent ?? '').matchAll(new RegExp(`tall ${n} line (\\d+)`, 'g'))];
    return all.length ? Number(all[all.length - 1]![1]) : 0;
  }, n);
}

/**
 * Waits until, while turn n still streams (its last line not yet in), its
 * newest line is at least line `from` and inside the view, or less than
 * half a view below it: the list followed the stream down. (Checked in
 * animation frames, before the list scrolls to what the frame just added,
 * so a few lines of lag are allowed; a list that stopped following leaves
 * line `from` (40 lines, 880 px, below where the turn began) out of reach.)
 */
async function followsWhileStreaming(page: Page, n: number, from = 40): Promise<void> {
  const state = await page.waitForFunction(
    ({ n, from }) => {
      const list = document.querySelector<HTMLElement>('[role="feed"][aria-label="Conversation"]');
      const turn = [...document.querySelectorAll<HTMLElement>('article')].find((a) => a.getAttribute('aria-label') === `Turn ${n}`);
      if (!list || !turn) return null;
      const lineBox = (k: number): DOMRect | null => {
        const re = new RegExp(`tall ${n} line ${k}(?!\\d)`);
        const walk = document.createTreeWalker(turn, NodeFilter.SHOW_TEXT);
        for (let t = walk.nextNode() as Text | null; t; t = walk.nextNode() as Text | null) {
          const m = re.exec(t.data);
          if (!m) continue;
          const r = document.createRange();
          r.setStart(t, m.index);
          r.setEnd(t, m.index + m[0].length);
          return r.getBoundingClientRect();
        }
        return null;
      };
      const lines = [...(turn.textContent ?? '').matchAll(new RegExp(`tall ${n} line (\\d+)`, 'g'))];
      const last = lines.length ? Number(lines[lines.length - 1]![1]) : 0;
      if (last >= 120) return { last, streaming: false };
      if (last < from) return null;
      const view = list.getBoundingClientRect();
      const newest = lineBox(last);
      if (!newest) return null;
      return newest.top >= view.top && newest.bottom < view.bottom + view.height / 2 ? { last, streaming: true } : null;
    },
    { n, from },
    { timeout: 45_000 },
  );
  expect(await state.jsonValue(), `turn ${n} was still streaming when the view was seen following it`).toMatchObject({
    streaming: true,
  });
}

test('three tall turns: each appears, the view follows the newest as it streams, and a reload shows all three', async ({ page }) => {
  await newSession(page);
  const turns: Locator[] = [];
  for (const n of [1, 2, 3]) {
    const turn = await send(page, `Give a tall answer ${n}`);
    await followsWhileStreaming(page, n);
    if (n === 3) await shot(page, 'tall-streaming.png');
    await finished(turn);
    await expect(turn.getByText(`Tall answer ${n} ends.`)).toBeInViewport();
    turns.push(turn);
  }
  // The first turn is out of the page now (that is the virtual list).
  await expect(page.getByRole('article', { name: 'Turn 1', exact: true })).toHaveCount(0);

  // After a reload the session opens at its newest turn, and each turn
  // renders as the list is scrolled up to it.
  await page.reload();
  await feed(page).hover();
  await expect(turns[2]!.getByText('Tall answer 3 ends.')).toBeInViewport();
  for (const n of [2, 1]) {
    const turn = turns[n - 1]!;
    // Wheel up, as a person does, past its end, then to its first line.
    for (const text of [`Tall answer ${n} ends.`, `Tall answer ${n} begins.`]) {
      const line = turn.getByText(text);
      // A wheel step does not wait for the scroll: each waits for the
      // frames that follow it, and one that went past the line comes back
      // down a little.
      for (let i = 0; i < 80; i++) {
        const where = await placeOf(page, line);
        if (where === 'in') break;
        await page.mouse.wheel(0, where === 'above' ? -300 : 120);
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
      }
      await expect(line).toBeInViewport();
    }
  }
});

/**
 * Where the locator is against the conversation's view: inside it, or
 * still above it (not rendered yet counts as above: the list renders as it
 * is scrolled up), or below it (the wheel went past).
 */
async function placeOf(page: Page, l: Locator): Promise<'in' | 'above' | 'below'> {
  const [box, view] = await Promise.all([l.boundingBox({ timeout: 1000 }).catch(() => null), feed(page).boundingBox()]);
  if (!box || !view || box.y < view.y) return 'above';
  return box.y + box.height <= view.y + view.height ? 'in' : 'below';
}

test('a tall turn streaming while the person scrolls up: the view stays where they put it', async ({ page }) => {
  await newSession(page);
  await finished(await send(page, 'Give a tall answer 1'));
  const list = feed(page);
  await list.hover();
  const turn = await send(page, 'Give a tall answer 2 slowly');
  await followsWhileStreaming(page, 2, 10);
  // Scroll up with the wheel, as a person does, while it streams.
  await page.mouse.wheel(0, -900);
  const seen = await lastLine(turn, 2);
  await expect.poll(() => list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight)).toBeGreaterThan(600);
  const at = await list.evaluate((el) => el.scrollTop);
  expect(seen, 'the turn was still streaming when the view was scrolled up').toBeLessThan(120);
  await finished(turn);
  // It went on streaming below, and the view did not move.
  expect(await lastLine(turn, 2)).toBe(120);
  expect(Math.abs((await list.evaluate((el) => el.scrollTop)) - at)).toBeLessThan(2);
  await expect(turn.getByText('Tall answer 2 ends.')).not.toBeInViewport();
  await shot(page, 'tall-scrolled-up.png');
  // Back at the bottom, it follows again: the next tall turn is seen streaming.
  await list.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
  const next = await send(page, 'Give a tall answer 3');
  await followsWhileStreaming(page, 3);
  await finished(next);
  await expect(next.getByText('Tall answer 3 ends.')).toBeInViewport();
});
