// A chart whose spec leaves the width unset (fakellm's bar chart) is as
// wide as its card, not Vega-Lite's 20 px a bar; and a chart follows a
// theme switch.
import { expect, finished, newSession, send, shot, test } from './fixtures';

test('a chart without a width fills its card', async ({ page }) => {
  await newSession(page);
  const turn = await send(page, 'Chart revenue by region for Q3');
  await finished(turn);
  const figure = turn.getByRole('figure', { name: 'Revenue by region (Q3)' });
  const svg = figure.locator('svg.marks');
  await expect(svg.locator('g.mark-rect.role-mark > path')).toHaveCount(4);
  await figure.scrollIntoViewIfNeeded();
  const { card, chart } = await figure.evaluate((f) => ({
    card: f.clientWidth,
    chart: f.querySelector('svg.marks')!.getBoundingClientRect().width,
  }));
  expect(card).toBeGreaterThan(500);
  expect(chart, `a ${chart} px chart in a ${card} px card`).toBeGreaterThan(card * 0.8);
  expect(chart).toBeLessThanOrEqual(card);
  await shot(page, 'browser-chart-width.png');
});

test('a chart follows a theme switch', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await newSession(page);
  const turn = await send(page, 'Chart revenue by region for Q3');
  await finished(turn);
  const figure = turn.getByRole('figure', { name: 'Revenue by region (Q3)' });
  const svg = figure.locator('svg.marks');
  await expect(svg.locator('g.mark-rect.role-mark > path')).toHaveCount(4);
  await figure.scrollIntoViewIfNeeded();
  // vega paints the chart's background on its svg: the card's colour.
  const cardColour = () => figure.evaluate((f) => getComputedStyle(f).backgroundColor);
  const light = await cardColour();
  await expect(svg).toHaveCSS('background-color', light);

  // The theme preference is "system": the system turning dark redraws the chart.
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const dark = await cardColour();
  expect(dark).not.toBe(light);
  await expect(svg).toHaveCSS('background-color', dark);
  await expect(svg.locator('g.mark-rect.role-mark > path')).toHaveCount(4);
  await shot(page, 'browser-chart-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });
  await expect(svg).toHaveCSS('background-color', light);
});
