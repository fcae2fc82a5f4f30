// The default scripted turn (fakellm with no keyword): a plan, a Vega-Lite
// bar chart, the plan ticked, then a markdown answer streamed in 60 pieces.
import { answer, expect, finished, newSession, ORIGIN, send, shot, test } from './fixtures';

const ASK = 'Chart revenue by region for Q3';

test('a message streams in and its answer renders as markdown', async ({ page }) => {
  await newSession(page);
  // Record the length of the newest answer at every change the page makes
  // to the conversation while it streams (not on a clock: a starved
  // browser draws rarely, but each drawing is seen).
  await page.evaluate(() => {
    const w = window as unknown as { lengths: number[]; observer: MutationObserver };
    w.lengths = [];
    const record = () => {
      const turns = document.querySelectorAll('article');
      const texts = turns[turns.length - 1]?.querySelectorAll('.md');
      const n = texts?.[texts.length - 1]?.textContent?.length ?? 0;
      if (w.lengths[w.lengths.length - 1] !== n) w.lengths.push(n);
    };
    w.observer = new MutationObserver(record);
    w.observer.observe(document.querySelector('main') ?? document.body, { subtree: true, childList: true, characterData: true });
  });
  const turn = await send(page, ASK);
  await finished(turn);
  // The finished answer, read once it has rendered: the last sample may be
  // from the frame before the final tokens landed.
  await expect(answer(turn).last().getByRole('table')).toBeVisible();
  const { lengths, final } = await page.evaluate(() => {
    const w = window as unknown as { lengths: number[]; observer: MutationObserver };
    w.observer.disconnect();
    const turns = document.querySelectorAll('article');
    const texts = turns[turns.length - 1]?.querySelectorAll('.md');
    return { lengths: w.lengths, final: texts?.[texts.length - 1]?.textContent?.length ?? 0 };
  });
  const partial = lengths.filter((n) => n > 0 && n < final);
  expect(final).toBeGreaterThan(200);
  // Streamed, not dropped in at the end: text was on the page before the
  // answer was whole. (How often a loaded browser draws decides how many
  // partial lengths it shows; one proves it streamed. The length need not
  // only grow: raw "| a |" shrinks to its cell's text when the table forms.)
  expect(partial.length, `lengths seen: ${lengths.join(', ')}`).toBeGreaterThanOrEqual(1);

  const md = answer(turn).last();
  await expect(md.getByRole('strong')).toHaveText('revenue by region');
  const table = md.getByRole('table');
  await expect(table.getByRole('columnheader')).toHaveText(['Region', 'Revenue']);
  await expect(table.getByRole('row')).toHaveCount(5);
  await expect(table.getByRole('row', { name: 'North 42.0k' })).toBeVisible();
  // The SQL block is highlighted: highlight.js spans, not plain text.
  const code = md.locator('pre code');
  await expect(code).toContainText('GROUP BY region');
  await expect(code.locator('.hljs-keyword').first()).toHaveText('SELECT');
  expect(await code.locator('[class^="hljs-"]').count()).toBeGreaterThan(5);
  await expect(md.getByRole('button', { name: 'Copy' })).toBeVisible();
  await turn.getByRole('table').scrollIntoViewIfNeeded();
  await shot(page, 'browser-conversation.png');
});

test('the plan checklist ends with every step ticked', async ({ page }) => {
  await newSession(page);
  const turn = await send(page, ASK);
  const plan = turn.getByRole('region', { name: 'Plan' });
  await expect(plan).toBeVisible();
  await finished(turn);
  await expect(plan).toContainText('3/3 done');
  const steps = plan.getByRole('listitem');
  await expect(steps).toHaveText([/Load the sales data\s*\(done\)/, /Chart revenue by region\s*\(done\)/, /Summarize\s*\(done\)/]);
  // Each step shows a tick mark, not the spinner of a running step.
  for (const step of await steps.all()) await expect(step.locator('svg')).toHaveCount(1);
  await expect(plan.locator('.spin')).toHaveCount(0);
  await expect(turn.getByRole('group').filter({ hasText: 'update_plan' })).toHaveCount(2);
});

// vega's code is a chunk of its own, loaded when the first chart renders:
// the first screen does not parse it.
const scripts = (urls: string[]) => urls.filter((u) => u.startsWith(`${ORIGIN}/`) && new URL(u).pathname.endsWith('.js'));

test('the chart renders four bars and nothing is fetched from elsewhere', async ({ page, requests }) => {
  await newSession(page);
  const atStart = scripts(requests);
  expect(atStart.length).toBeGreaterThan(0);
  const turn = await send(page, ASK);
  await finished(turn);
  const figure = turn.getByRole('figure', { name: 'Revenue by region (Q3)' });
  await expect(figure).toBeVisible();
  const svg = figure.locator('svg.marks');
  await expect(svg).toBeVisible();
  // vega draws each bar as a path in the rect mark group.
  await expect(svg.locator('g.mark-rect.role-mark > path')).toHaveCount(4);
  const bars = await svg.locator('g.mark-rect.role-mark > path').evaluateAll((ps) => ps.map((p) => p.getAttribute('aria-label') ?? ''));
  for (const region of ['North', 'South', 'East', 'West'])
    expect(
      bars.some((b) => b.includes(region)),
      `a bar for ${region}`,
    ).toBe(true);
  await expect(svg.getByText('Region', { exact: true })).toBeVisible();
  await figure.scrollIntoViewIfNeeded();
  await shot(page, 'browser-chart.png');
  expect(
    scripts(requests).filter((u) => !atStart.includes(u)),
    'scripts loaded for the chart',
  ).not.toEqual([]);
  expect(requests.length).toBeGreaterThan(5);
  expect(requests.filter((u) => !u.startsWith(`${ORIGIN}/`))).toEqual([]);
});
