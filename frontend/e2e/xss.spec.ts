// Hostile markup from the model (fakellm's "xss" answer) and from the user
// must stay inert: no dialog, no event handler attribute, no script URL,
// at any moment of the stream, not only at the end.
import { answer, expect, finished, newSession, send, test } from './fixtures';

test('markup in answers and messages never runs', async ({ page, dialogs }) => {
  await newSession(page);
  // Record every element that reaches the live page with a handler
  // attribute or a script URL, while the answer streams in.
  await page.evaluate(() => {
    const w = window as unknown as { hostile: string[] };
    w.hostile = [];
    const check = (el: Element) => {
      for (const a of Array.from(el.attributes)) {
        if (/^on/i.test(a.name) || /^\s*(javascript|vbscript|data:text\/html)/i.test(a.value)) w.hostile.push(el.outerHTML.slice(0, 160));
      }
    };
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === 'attributes') check(r.target as Element);
        r.addedNodes.forEach((n) => {
          if (!(n instanceof Element)) return;
          check(n);
          n.querySelectorAll('*').forEach(check);
        });
      }
    }).observe(document, { subtree: true, childList: true, attributes: true });
  });
  const message = 'xss test <img src=x onerror=alert(8)> <script>alert(9)</script>';
  const turn = await send(page, message);
  await finished(turn);
  const md = answer(turn).last();
  await expect(md).toContainText('The end of the xss answer.');
  // The user's message is shown as text, in the bubble and as the title.
  await expect(page.getByRole('heading', { level: 1 })).toContainText('<img src=x onerror=alert(8)>');

  expect(await page.evaluate(() => (window as unknown as { hostile: string[] }).hostile)).toEqual([]);
  for (const attr of ['onerror', 'onload', 'onclick']) await expect(page.locator(`[${attr}]`)).toHaveCount(0);
  await expect(page.locator('main script, main iframe, main object, main embed, main svg[onload]')).toHaveCount(0);
  const hrefs = await page.locator('a[href]').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  expect(hrefs.filter((h) => /^\s*javascript:/i.test(h))).toEqual([]);

  // Clicking what was meant as a javascript: link does nothing.
  const url = page.url();
  await md.getByText('a javascript link').click();
  await md.getByText('a raw one').click();
  await page.waitForTimeout(300);
  expect(page.url()).toBe(url);
  expect(page.context().pages()).toHaveLength(1);
  expect(dialogs).toEqual([]);
});
