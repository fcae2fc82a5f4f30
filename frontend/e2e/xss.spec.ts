// Hostile markup from the model (fakellm's "xss" answer) and from the user
// must stay inert: no dialog, no event handler attribute, no script URL,
// at any moment of the stream, not only at the end. Markup made to look
// like the app (fakellm's "spoof" answer) must not: no control, no app
// class, no id or style, live, after a reload and in search results.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answer, expect, finished, newSession, openApp, ORIGIN, OUT, send, shot, test, uid } from './fixtures';
import type { Locator, Page } from '@playwright/test';

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

test('markup made to look like the app renders as plain content: live, after a reload, in search', async ({ page }) => {
  await watchSpoofs(page);
  await newSession(page);
  const title = `spoof test ${uid()}`;
  const turn = await send(page, title);
  await finished(turn);
  const md = answer(turn).last();
  await expect(md).toContainText('The end of the spoof answer.');
  // Every element that reached a rendered answer while it streamed.
  const live = await page.evaluate(() => (window as unknown as Spoofs).spoofWatch);
  expect(live.checked, 'elements checked while the answer streamed').toBeGreaterThan(20);
  expect(live.found).toEqual([]);
  await expectOnlyOurControls(md);
  await shot(page, 'browser-spoof.png');

  // After a reload, from the database.
  await openApp(page, `${ORIGIN}/`);
  await page.getByRole('navigation', { name: 'Session list' }).getByText(title).click();
  const again = answer(page.getByRole('article', { name: 'Turn 1', exact: true })).last();
  await expect(again).toContainText('The end of the spoof answer.');
  await expectOnlyOurControls(again);
  expect((await page.evaluate(() => (window as unknown as Spoofs).spoofWatch)).found).toEqual([]);

  // In search results: the snippet is text and <mark>s only.
  await page.keyboard.press('Control+k');
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill('counterfeit');
  const hit = page.getByRole('button').filter({ hasText: title });
  await expect(hit).toHaveCount(1);
  await expect(hit.locator('mark')).toHaveText([/^counterfeit$/i]);
  const inSnippet = await hit.locator('.snippet').evaluate((el) => Array.from(el.querySelectorAll('*'), (e) => e.outerHTML));
  expect(inSnippet).toEqual(['<mark>counterfeit</mark>']);
  await expect(hit.locator('button, input, select, textarea, label, form, details, [id], [style]')).toHaveCount(0);
});

interface Spoofs {
  spoofWatch: { checked: number; found: string[] };
  spoofCheck: (el: Element) => string | null;
}

/**
 * Watches, from the first script of every page load, each element added to
 * a rendered answer (.md) for what only the app may have: a class other than
 * highlight.js's and our renderer's, an id, a style, or a control other than
 * our Copy button and read-only task boxes.
 */
async function watchSpoofs(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as Spoofs;
    const OURS = ['code-block', 'code-head', 'code-lang', 'code-copy', 'code-artifact', 'img-blocked', 'task-box'];
    const ours = (el: Element) =>
      el.matches('.code-head > button.code-copy[type="button"][data-copy="1"]') ||
      el.matches('.code-head > button.code-artifact[type="button"][data-artifact="1"]') ||
      el.matches('li > input.task-box[type="checkbox"][disabled]');
    w.spoofCheck = (el) => {
      if (el.id) return `id: ${el.outerHTML}`;
      if (el.hasAttribute('style')) return `style: ${el.outerHTML}`;
      for (const c of Array.from(el.classList))
        if (!OURS.includes(c) && !/^hljs(-|$)/.test(c) && !/^[a-z0-9]+_+$/.test(c)) return `class ${c}: ${el.outerHTML}`;
      if (el.matches('button, input, select, textarea, label, form, details, summary, dialog, option') && !ours(el))
        return `control: ${el.outerHTML}`;
      return null;
    };
    w.spoofWatch = { checked: 0, found: [] };
    const check = (el: Element) => {
      if (!el.parentElement?.closest('.md')) return;
      w.spoofWatch.checked++;
      const bad = w.spoofCheck(el);
      if (bad) w.spoofWatch.found.push(bad.slice(0, 200));
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
  await openApp(page, `${ORIGIN}/`);
}

/** The answer shows the forged controls' text, and holds no control but ours: one Copy button, two task boxes. */
async function expectOnlyOurControls(md: Locator): Promise<void> {
  await expect(md).toContainText('Allow once');
  await expect(md).toContainText('A fake turn over the page');
  const found = await md.evaluate((root) => {
    const w = window as unknown as Spoofs;
    return Array.from(root.querySelectorAll('*'), (el) => w.spoofCheck(el)).filter((x) => x !== null);
  });
  expect(found).toEqual([]);
  await expect(md.getByRole('button')).toHaveText(['Copy']);
  await expect(md.locator('input')).toHaveCount(2);
  await expect(md.locator('input').first()).toBeChecked();
  await expect(md.locator('select, textarea, label, form, details, summary')).toHaveCount(0);
  await expect(md.locator('.code-block .code-lang')).toHaveText('go');
}

// Chromium reports an inline handler the policy refuses only when a live
// document (one with a window) compiles it: nothing ran, but the app had
// let the browser build an element with a handler. The sanitizer must
// parse in an inert document and hand the page only clean markup, live,
// and when the turn is opened again from the database.
test('hostile markup never reaches a live document with its handlers: no CSP report', async ({ page }) => {
  const refused: string[] = [];
  page.on('console', (m) => {
    if (/inline event handler|Content Security Policy/i.test(m.text()))
      refused.push(`${m.text().slice(0, 120)} at ${m.location().url}:${m.location().lineNumber}`);
  });
  await newSession(page);
  const title = `xss csp ${uid()} <img src=x onerror=alert(8)>`;
  const turn = await send(page, title);
  await finished(turn);
  await expect(answer(turn).last()).toContainText('The end of the xss answer.');

  // Opened again, from the database.
  await openApp(page, `${ORIGIN}/`);
  await page.getByRole('navigation', { name: 'Session list' }).getByText(title).click();
  const again = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(answer(again).last()).toContainText('The end of the xss answer.');
  // Images that fail to load (what fires onerror) have had their chance:
  // every image in the page has finished, loaded or not.
  await page.waitForFunction(() => Array.from(document.images).every((i) => i.complete));
  expect(refused).toEqual([]);
});

// ---- artifacts (issue 46) ------------------------------------------------
//
// fakellm's "artifact attack NAME" answers a page whose script tries one
// thing an artifact must not do (backend/llm/llmtest/cmd/fakellm/
// artifactframe.go) and writes what happened into its own page. Each is
// opened in the sealed frame with the page's policy on, then with it
// bypassed (bypassCSP: the policies of the app and of the frame are off,
// so only the sandbox holds): what it tried must do nothing outside the
// frame. Every request off the app's origin is aborted and recorded; with
// the policy on, none may be made at all; bypassed, only those the policy
// alone stops (docs/SECURITY.md lists them) may be. These tests attack on
// purpose: the fixture's hostileArtifacts hands what the policy refused to
// the test instead of failing it.

/** The attacks that only the policy stops: bypassed, they make an off-site request. */
const CSP_ONLY: Record<string, RegExp> = {
  'fetch-offsite': /^http:\/\/evil\.example\/steal/,
  image: /^http:\/\/evil\.example\/pixel\.gif/,
  'meta-refresh': /^http:\/\/evil\.example\/refresh/,
};

interface Attack {
  name: string;
  /** What the frame's page says once the attempt is over (both modes), or a console message to wait for. */
  settled: RegExp;
  /** Waits on the console instead of the frame's text. */
  console?: boolean;
}

const ATTACKS: Attack[] = [
  {
    name: 'read-parent',
    settled:
      /parent\.document: SecurityError; top\.localStorage: SecurityError; localStorage: SecurityError; document\.cookie: SecurityError/,
  },
  { name: 'top-location', settled: /^top-location: SecurityError$/ },
  { name: 'top-location-app', settled: /^top-location-app: SecurityError$/ },
  { name: 'fetch-offsite', settled: /^fetch-offsite: TypeError$/ },
  { name: 'fetch-api', settled: /^fetch-api: TypeError$/ },
  { name: 'image', settled: /^image: failed$/ },
  { name: 'window-open', settled: /^window-open: null$/ },
  { name: 'form', settled: /Blocked form submission to 'http:\/\/evil\.example\/form'/, console: true },
  { name: 'form-app', settled: /Blocked form submission to '.*\/api\/call\/CreateSession'/, console: true },
  { name: 'postmessage', settled: /^postmessage: sent 6$/ },
  { name: 'meta-refresh', settled: /evil\.example\/refresh/ },
  { name: 'meta-refresh-app', settled: /\/$/ },
];

for (const bypass of [false, true]) {
  test.describe(`artifact attacks, the policy ${bypass ? 'bypassed' : 'on'}`, () => {
    test.use({ hostileArtifacts: true, bypassCSP: bypass });
    for (const a of ATTACKS) {
      test(`${a.name} does nothing outside the frame (${bypass ? 'policy bypassed' : 'policy on'})`, async ({ page, watch }) => {
        const context = page.context();
        const offsite: string[] = [];
        // Answered for the frame: what reached the app's API, and its status.
        const api: string[] = [];
        await context.route(
          (url) => url.origin !== ORIGIN && url.protocol.startsWith('http'),
          (route) => {
            offsite.push(route.request().url());
            void route.abort();
          },
        );
        // What the frame asked of the app's API, and how it ended.
        context.on('requestfinished', (r) => {
          if (isAPI(r) && fromFrame(r)) void r.response().then((res) => api.push(`${res?.status() ?? 'none'} ${r.url()}`));
        });
        context.on('requestfailed', (r) => {
          if (isAPI(r) && fromFrame(r)) api.push(`failed ${r.failure()?.errorText ?? ''} ${r.url()}`);
        });
        const console: string[] = [];
        page.on('console', (m) => console.push(m.text()));
        await newSession(page);
        // Messages that reach the app's window, counted by a listener of the test's own (the app has none).
        await page.evaluate(() => {
          const w = window as unknown as { got: number };
          w.got = 0;
          addEventListener('message', () => w.got++);
        });
        const turn = await send(page, `artifact attack ${a.name}`);
        await finished(turn);
        const url = page.url();
        const frameRequests = a.name.startsWith('meta-refresh') ? navigations(page, a, bypass) : null;
        await turn.getByRole('button', { name: 'Open as artifact' }).click();
        const panel = page.getByRole('complementary', { name: 'Artifact' });
        await expect(panel.getByRole('heading', { level: 2 })).toHaveText(`Attack ${a.name}`);

        if (a.console) {
          await expect.poll(() => console.some((t) => a.settled.test(t))).toBe(true);
        } else if (frameRequests) {
          await frameRequests;
        } else {
          await expect(page.frameLocator('[data-testid="artifact-frame"]').locator('#out')).toHaveText(a.settled);
        }
        const frameSeen = await page
          .frameLocator('[data-testid="artifact-frame"]')
          .locator('body')
          .innerText({ timeout: 2000 })
          .catch(() => '(not readable)');
        if (a.name === 'postmessage') await page.waitForFunction(() => (window as unknown as { got: number }).got === 6);

        // Nothing outside the frame: the window stayed where it was, no
        // pop-up opened, the app's data is as it was.
        expect(page.url()).toBe(url);
        expect(context.pages()).toHaveLength(1);
        expect(await sessionTitles(page), 'sessions an artifact made').toEqual([]);
        await expect(page.getByRole('dialog')).toHaveCount(0);
        // The frame's requests to the app's API were refused (Origin: null).
        if (bypass && a.name === 'fetch-api') await expect.poll(() => api.length).toBeGreaterThan(0);
        for (const r of api) expect(r).toMatch(/^(40[13]|failed) /);
        // What each attempt did, for docs/SECURITY.md: build/e2e/artifact-attacks/.
        mkdirSync(join(OUT, 'artifact-attacks'), { recursive: true });
        writeFileSync(
          join(OUT, 'artifact-attacks', `${a.name}-${bypass ? 'bypassed' : 'on'}.json`),
          JSON.stringify({ offsite, api, frame: frameSeen, violations: watch.violations }, null, 2),
        );
        if (bypass) {
          const only = CSP_ONLY[a.name];
          expect(
            offsite.filter((u) => !only?.test(u)),
            'off-site requests the sandbox should have stopped',
          ).toEqual([]);
          if (only)
            expect(
              offsite.some((u) => only.test(u)),
              'the attempt only the policy stops was made',
            ).toBe(true);
        } else {
          // The route sees what reached the network; the fixture's watch
          // also lists what Chromium announced and the policy then refused.
          expect(offsite, 'off-site requests with the policy on').toEqual([]);
          for (const u of watch.frameOffsite) expect(watch.violations.some((v) => v.includes(new URL(u).origin))).toBe(true);
        }
      });
    }
  });
}

function isAPI(r: import('@playwright/test').Request): boolean {
  return new URL(r.url()).pathname.startsWith('/api/');
}

function fromFrame(r: import('@playwright/test').Request): boolean {
  try {
    return r.frame().parentFrame() !== null;
  } catch {
    return false;
  }
}

/**
 * A meta refresh navigates the frame: with the policy on, the app's
 * frame-src refuses it (a report on the console); bypassed, the request is
 * made (off-site: aborted by the route; the app's own page: answered).
 */
async function navigations(page: Page, a: Attack, bypass: boolean): Promise<void> {
  if (!bypass) {
    // The report names only the origin of an address on another site.
    const refused = a.name === 'meta-refresh' ? /^http:\/\/evil\.example\/?$/ : a.settled;
    await page.waitForEvent('console', { predicate: (m) => /frame-src/.test(m.text()) && refused.test(m.text().split("'")[1] ?? '') });
    return;
  }
  await page.context().waitForEvent('request', {
    predicate: (r) => fromFrame(r) && r.isNavigationRequest() && a.settled.test(r.url()) && !r.url().includes('artifact.html'),
  });
}

async function sessionTitles(page: Page): Promise<string[]> {
  const res = await page.evaluate(async () => {
    const token = sessionStorage.getItem('agentdeck.token') ?? '';
    const r = await fetch('/api/call/ListSessions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify([{ limit: 500 }]),
    });
    return (await r.json()) as { sessions?: { title: string }[]; pinned?: { title: string }[] };
  });
  return [...(res.pinned ?? []), ...(res.sessions ?? [])].map((s) => s.title).filter((t) => /hijacked/i.test(t));
}
