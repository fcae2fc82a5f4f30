// Keyboard-only use: how many Tabs the message box costs, the skip link,
// a visible focus ring on every Tab stop, focus moves around a turn and
// the diagnostics panel, the settings dialog and its tabs, and the session
// rows' actions.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { composer, expect, finished, newSession, openApp, OUT, send, shot, test, uid } from './fixtures';

/** What has focus: a stable id for the element (kept in the page), a
 * description, and the ring it draws. */
interface Stop {
  id: number;
  body: boolean;
  what: string;
  outline: string;
  shadow: string;
  ring: boolean;
  /** Ancestors (or the viewport) that cut off part of the outline. */
  clippedBy: string[];
  box: { x: number; y: number; width: number; height: number } | null;
}

async function focused(page: Page): Promise<Stop> {
  return page.evaluate(() => {
    const w = window as unknown as { walkIds?: WeakMap<Element, number>; walkNext?: number };
    w.walkIds ??= new WeakMap();
    w.walkNext ??= 1;
    const el = document.activeElement;
    if (!el || el === document.body)
      return { id: 0, body: true, what: '<body>', outline: '', shadow: '', ring: false, clippedBy: [], box: null };
    if (!w.walkIds.has(el)) w.walkIds.set(el, w.walkNext++);
    const cs = getComputedStyle(el);
    const outline = `${cs.outlineStyle} ${cs.outlineWidth} ${cs.outlineColor} offset ${cs.outlineOffset}`;
    const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || (cs.boxShadow !== 'none' && cs.boxShadow !== '');
    const name = el.getAttribute('aria-label') || (el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    const r = el.getBoundingClientRect();
    // Where the outline is drawn, and every box that clips it: an ancestor
    // whose overflow is not visible clips at its padding box.
    const grow = cs.outlineStyle === 'none' ? 0 : parseFloat(cs.outlineOffset) + parseFloat(cs.outlineWidth);
    const ringBox = { left: r.left - grow, top: r.top - grow, right: r.right + grow, bottom: r.bottom + grow };
    const clippedBy: string[] = [];
    const cut = (c: { left: number; top: number; right: number; bottom: number }) =>
      ringBox.left < c.left - 0.5 || ringBox.top < c.top - 0.5 || ringBox.right > c.right + 0.5 || ringBox.bottom > c.bottom + 0.5;
    if (cut({ left: 0, top: 0, right: innerWidth, bottom: innerHeight })) clippedBy.push('the viewport');
    for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
      const ar = a.getBoundingClientRect();
      const left = ar.left + a.clientLeft;
      const top = ar.top + a.clientTop;
      if (cut({ left, top, right: left + a.clientWidth, bottom: top + a.clientHeight })) {
        clippedBy.push(
          `${a.tagName.toLowerCase()}${typeof a.className === 'string' && a.className ? `.${a.className.trim().split(/\s+/).join('.')}` : ''} (overflow ${s.overflowX} ${s.overflowY})`,
        );
      }
    }
    return {
      id: w.walkIds.get(el) ?? 0,
      body: false,
      what: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${cls} "${name}"`,
      outline,
      shadow: cs.boxShadow,
      ring,
      clippedBy,
      box: { x: r.x, y: r.y, width: r.width, height: r.height },
    };
  });
}

/** The ring is on screen: the area around the focused element looks
 * different with the element's outline and shadow taken away (a ring in
 * the background's colour would not). */
async function ringShows(page: Page, stop: Stop): Promise<boolean> {
  if (!stop.box) return false;
  const vp = page.viewportSize() ?? { width: 1280, height: 800 };
  const x = Math.max(0, Math.floor(stop.box.x) - 6);
  const y = Math.max(0, Math.floor(stop.box.y) - 6);
  const clip = {
    x,
    y,
    width: Math.min(vp.width, Math.ceil(stop.box.x + stop.box.width) + 6) - x,
    height: Math.min(vp.height, Math.ceil(stop.box.y + stop.box.height) + 6) - y,
  };
  if (clip.width <= 0 || clip.height <= 0) return false;
  // Moving focus may scroll a list, which draws again on the next frames.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  const shoot = () => page.screenshot({ clip, animations: 'disabled', caret: 'hide' });
  const withRing = await shoot();
  await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    el.style.setProperty('outline', 'none', 'important');
    el.style.setProperty('box-shadow', 'none', 'important');
  });
  const without = await shoot();
  await page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    el.style.removeProperty('outline');
    el.style.removeProperty('box-shadow');
  });
  return !withRing.equals(without);
}

/**
 * Tabs once round the whole page, from where focus is back to it, and
 * checks every stop: it draws a ring (computed outline or box-shadow), no
 * scrolling or overflow-hidden ancestor cuts the outline off, and the ring
 * changes what is on screen. Focus may rest on <body> only where the order
 * wraps, and the stop after the wrap is the skip link. `atStop` runs at
 * each stop (to open a tool card, say). Returns the stops in order.
 */
async function walk(page: Page, atStop?: (stop: Stop) => Promise<void>): Promise<Stop[]> {
  const stops: Stop[] = [];
  const problems: string[] = [];
  let start = await focused(page);
  if (start.body) {
    await page.keyboard.press('Tab');
    start = await focused(page);
  }
  let current = start;
  let wraps = 0;
  for (let n = 0; n < 250; n++) {
    if (current.body) {
      wraps++;
    } else {
      stops.push(current);
      if (!current.ring) problems.push(`${current.what}: no ring (outline ${current.outline}, box-shadow ${current.shadow})`);
      else if (current.clippedBy.length)
        problems.push(`${current.what}: its ring (${current.outline}) is cut off by ${current.clippedBy.join(', ')}`);
      else if (!(await ringShows(page, current))) problems.push(`${current.what}: its ring (${current.outline}) does not show`);
      await atStop?.(current);
    }
    await page.keyboard.press('Tab');
    const next = await focused(page);
    if (current.body && !next.body) {
      await expect(page.getByRole('link', { name: 'Skip to message box' }), `the first stop after the wrap (${next.what})`).toBeFocused();
    }
    if (!next.body && next.id === start.id) break;
    current = next;
  }
  expect(stops.length, 'Tab stops before focus came back to where it started').toBeLessThan(250);
  expect(wraps, 'times focus rested on <body> (only where the order wraps)').toBeLessThanOrEqual(1);
  expect(problems, `stops without a visible focus ring, of ${stops.length}:\n${stops.map((s) => s.what).join('\n')}`).toEqual([]);
  return stops;
}

test('the skip link is the first Tab stop and leads to the message box', async ({ page }) => {
  await expect(composer(page)).toBeEditable();
  const url = page.url();
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to message box' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  await page.keyboard.press('Enter');
  await expect(composer(page)).toBeFocused();
  // The address is the app's route: the link does not change it.
  expect(page.url()).toBe(url);
  // Unfocused, it is out of sight.
  await expect(skip).not.toBeInViewport();
});

test('the session list costs one Tab stop, however many sessions it lists', async ({ page }) => {
  for (let i = 0; i < 5; i++) {
    await newSession(page);
    await finished(await send(page, `Please remember session ${i + 1} ${uid()}`));
  }
  await openApp(page);
  const list = page.getByRole('navigation', { name: 'Session list' });
  const rows = list.getByRole('listitem');
  await expect(rows.nth(4)).toBeVisible();
  const listed = await rows.count();

  // From page load, Tab until the message box has focus (without the skip link).
  let tabs = 0;
  let inList = 0;
  let onBody = 0;
  while (tabs < 200) {
    await page.keyboard.press('Tab');
    tabs++;
    const at = await page.evaluate(() => {
      const el = document.activeElement;
      return {
        composer: el?.id === 'composer-input',
        list: !!el?.closest('nav[aria-label="Session list"]'),
        body: !el || el === document.body,
      };
    });
    if (at.list) inList++;
    if (at.body) onBody++;
    if (at.composer) break;
  }
  mkdirSync(OUT, { recursive: true });
  writeFileSync(join(OUT, 'tabs-to-composer.json'), JSON.stringify({ sessionsListed: listed, tabs, stopsInSessionList: inList }, null, 2));
  await expect(composer(page)).toBeFocused();
  expect(onBody, 'Tabs that left focus on <body>').toBe(0);
  expect(inList, `Tab stops in a list of ${listed} sessions`).toBe(1);
});

test("a session row's actions are reached with the arrow keys, not with Tab", async ({ page }) => {
  const titles: string[] = [];
  for (let i = 0; i < 2; i++) {
    await newSession(page);
    titles.push(`Please remember row ${i + 1} ${uid()}`);
    await finished(await send(page, titles[i]));
  }
  const list = page.getByRole('navigation', { name: 'Session list' });
  const newest = list.getByRole('button', { name: titles[1], exact: true });
  // One row takes Tab (the open session's); no action button does.
  await expect(list.locator('button[tabindex="0"]')).toHaveCount(1);
  await expect(newest).toHaveAttribute('tabindex', '0');
  // (Hidden until the row has focus or the pointer: found by their labels.)
  for (const action of ['Rename', 'Export', 'Delete'])
    await expect(list.locator(`button[aria-label="${action} ${titles[1]}"]`)).toHaveAttribute('tabindex', '-1');

  await page.getByRole('searchbox', { name: 'Search sessions' }).focus();
  await page.keyboard.press('Tab');
  await expect(newest).toBeFocused();
  // Down and Up move between rows (the newest session is listed first).
  await page.keyboard.press('ArrowDown');
  const older = list.getByRole('button', { name: titles[0], exact: true });
  await expect(older).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(newest).toBeFocused();
  // Right reaches the row's actions, which show while the row has focus.
  await page.keyboard.press('ArrowRight');
  const rename = list.getByRole('button', { name: `Rename ${titles[1]}` });
  await expect(rename).toBeFocused();
  await expect(rename).toBeVisible();
  await page.keyboard.press('ArrowRight');
  await expect(list.getByRole('button', { name: `Export ${titles[1]}` })).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(rename).toBeFocused();
  // Rename by keyboard: Esc gives focus back to the row.
  await page.keyboard.press('Enter');
  const input = list.getByRole('textbox', { name: 'Session title' });
  await expect(input).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(newest).toBeFocused();
  // Tab leaves the list at once, for the sidebar's footer: the version (About), then its buttons.
  await page.keyboard.press('ArrowDown');
  await expect(older).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: /^About Agentdeck v/ })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Import a session' })).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  // And Shift+Tab comes back to the row last visited.
  await page.keyboard.press('Shift+Tab');
  await expect(older).toBeFocused();
});

for (const scheme of ['light', 'dark'] as const) {
  test(`every Tab stop of the empty session shows a focus ring (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await expect(composer(page)).toBeEditable();
    const stops = await walk(page, async (stop) => {
      if (stop.what.startsWith('input#session-search')) await shot(page, `browser-focus-search-${scheme}.png`);
    });
    expect(stops[0].what).toContain('Skip to message box');
    expect(stops.some((s) => s.what.startsWith('input#session-search'))).toBe(true);
    expect(stops.some((s) => s.what.startsWith('textarea#composer-input'))).toBe(true);
  });

  test(`every Tab stop of a conversation shows a focus ring, tool cards open by keyboard (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    await newSession(page);
    const turn = await send(page, 'Chart revenue by region for Q3');
    await finished(turn);
    const figure = turn.getByRole('figure', { name: 'Revenue by region (Q3)' });
    await expect(figure.locator('svg.marks')).toBeVisible();
    // vega-embed's actions menu has a name.
    await expect(figure.locator('summary')).toHaveAccessibleName('Chart actions');
    await expect(composer(page)).toBeFocused();

    let opened = 0;
    const stops = await walk(page, async (stop) => {
      const summary = page.locator('details.tool:not([open]) > summary:focus');
      if ((await summary.count()) === 0) return;
      if (opened === 0) await shot(page, `browser-focus-rings-${scheme}.png`);
      await page.keyboard.press('Enter');
      await expect(page.locator('details.tool[open] > summary:focus'), `${stop.what} opened by Enter`).toHaveCount(1);
      opened++;
    });
    const tools = await turn.locator('details.tool').count();
    expect(opened).toBe(tools);
    // Each opened card's arguments block took focus (it may scroll).
    expect(stops.filter((s) => s.what.startsWith('pre') && s.what.includes('Arguments of')).length).toBe(tools);
    expect(stops.some((s) => s.what.includes('Chart actions'))).toBe(true);
    expect(stops.some((s) => s.what.includes('Diagnostics'))).toBe(true);
  });
}

test('focus moves from Send to Stop as a turn starts, and from Stop to the message box', async ({ page }) => {
  await newSession(page);
  const form = page.getByRole('form', { name: 'Message' });
  await composer(page).fill(`Answer slow please ${uid()}`);
  await form.getByRole('button', { name: 'Send' }).focus();
  await page.keyboard.press('Enter');
  const stop = form.getByRole('button', { name: 'Stop' });
  await expect(stop).toBeFocused();
  const turn = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(turn.locator('.md').last()).toContainText('word5');
  await page.keyboard.press('Enter');
  await finished(turn);
  await expect(turn.getByText('Stopped', { exact: true })).toBeVisible();
  await expect(composer(page)).toBeFocused();
});

test('focus goes from Stop to the message box when the turn ends by itself', async ({ page }) => {
  await newSession(page);
  const form = page.getByRole('form', { name: 'Message' });
  // About 6 s of streaming: time enough to see Stop take focus.
  await composer(page).fill(`Please stream a table ${uid()}`);
  await form.getByRole('button', { name: 'Send' }).focus();
  await page.keyboard.press('Enter');
  await expect(form.getByRole('button', { name: 'Stop' })).toBeFocused();
  await finished(page.getByRole('article', { name: 'Turn 1', exact: true }));
  await expect(composer(page)).toBeFocused();
});

test('the diagnostics panel takes focus when it opens, and Esc closes it and gives focus back', async ({ page }) => {
  await newSession(page);
  const turn = await send(page, `Please remember this ${uid()}`);
  await finished(turn);
  const button = turn.getByRole('button', { name: 'Diagnostics' });
  await button.focus();
  await page.keyboard.press('Enter');
  const panel = page.getByRole('complementary', { name: 'Diagnostics' });
  await expect(panel).toBeVisible();
  await expect(panel).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(panel.getByRole('button', { name: 'Close diagnostics' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(panel).toHaveCount(0);
  await expect(button).toBeFocused();
  await expect(button).toHaveAttribute('aria-pressed', 'false');

  // Closed with its own button, too, it gives focus back.
  await page.keyboard.press('Enter');
  await expect(panel).toBeFocused();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await expect(panel).toHaveCount(0);
  await expect(button).toBeFocused();
});

test('the settings dialog keeps focus, its tabs follow the arrow keys, and Esc gives focus back', async ({ page }) => {
  const opener = page.getByRole('button', { name: 'Settings', exact: true });
  await opener.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await expect(dialog).toBeVisible();
  // A native modal dialog: the page behind it is inert.
  expect(await dialog.evaluate((d) => d instanceof HTMLDialogElement && d.matches(':modal'))).toBe(true);

  // Tabs: one Tab stop, the selected tab; Right, Left, Home and End move
  // the selection and the focus together (wrapping at the ends).
  const tab = (name: string) => dialog.getByRole('tab', { name });
  await tab('Providers').click();
  await expect(tab('Providers')).toHaveAttribute('aria-selected', 'true');
  await expect(dialog.locator('[role="tab"][tabindex="0"]')).toHaveCount(1);
  for (const [key, name] of [
    ['ArrowRight', 'Defaults & limits'],
    ['ArrowRight', 'Appearance'],
    ['End', 'Observability'],
    ['ArrowRight', 'Providers'],
    ['ArrowLeft', 'Observability'],
    ['Home', 'Providers'],
  ] as const) {
    await page.keyboard.press(key);
    await expect(tab(name), `${key} selects ${name}`).toBeFocused();
    await expect(tab(name)).toHaveAttribute('aria-selected', 'true');
    await expect(tab(name)).toHaveAttribute('tabindex', '0');
    await expect(dialog.getByRole('tabpanel')).toHaveAttribute('aria-labelledby', (await tab(name).getAttribute('id')) ?? '');
  }
  await expect(dialog.locator('[role="tab"][aria-selected="true"]')).toHaveCount(1);

  // Focus stays in the dialog, round and round: nothing behind it gets it.
  const seen = new Set<string>();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const el = document.activeElement;
      const d = document.querySelector('dialog[open]');
      return {
        inside: !!el && !!d?.contains(el),
        body: !el || el === document.body,
        what: el ? `${el.tagName} ${el.getAttribute('aria-label') ?? el.textContent?.trim().slice(0, 30)}` : '',
      };
    });
    expect(at.inside || at.body, `Tab ${i + 1} reached ${at.what}, behind the dialog`).toBe(true);
    if (at.inside) seen.add(at.what);
  }
  expect(seen.size).toBeGreaterThan(3);

  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(opener).toBeFocused();
});
