// Shared fixtures and helpers for the browser tests.
//
// Every test gets a page already open on the app (the URL with the token,
// which the server turns into a cookie) and four guards that run after
// it: no JavaScript dialog opened (an alert is what an XSS payload does),
// no uncaught page error, no load or connection refused by the
// Content-Security-Policy (an off-site fetch the policy stopped), and no
// request left the server's origin.
import { test as base, expect, type Locator, type Page, type Request } from '@playwright/test';
import { join } from 'node:path';

export { expect };

export const E2E_URL = need('E2E_URL');
export const ORIGIN = new URL(E2E_URL).origin;
/** Where named screenshots go (build/e2e). */
export const OUT = process.env.E2E_OUT || '../build/e2e';

type Fixtures = {
  /** Every URL the page requested, in order. */
  requests: string[];
  /** Messages of the dialogs that opened (each was dismissed). */
  dialogs: string[];
  /**
   * The opt-out of the tests whose artifacts attack on purpose
   * (xss.spec.ts): what the policy refuses and the uncaught errors are
   * handed to the test (watch) instead of failing it, and requests off
   * the server's origin are allowed when an artifact's frame (a subframe)
   * made them; one made by the page itself or a pop-up still fails it.
   * Dialogs still fail it.
   */
  hostileArtifacts: boolean;
  /** What the guards saw (the test reads it under hostileArtifacts). */
  watch: Watch;
};

export interface Watch {
  requests: string[];
  /** Requests off the server's origin that a subframe made. */
  frameOffsite: string[];
  dialogs: string[];
  errors: string[];
  violations: string[];
}

const watches = new WeakMap<Page, Watch>();

export const test = base.extend<Fixtures>({
  hostileArtifacts: [false, { option: true }],
  page: async ({ page, hostileArtifacts }, use) => {
    const w: Watch = { requests: [], frameOffsite: [], dialogs: [], errors: [], violations: [] };
    watches.set(page, w);
    // On the context, so popups (links the app opens) are watched too.
    page.context().on('request', (r) => {
      if (hostileArtifacts && !sameOrigin(r.url()) && fromSubframe(r)) w.frameOffsite.push(r.url());
      else w.requests.push(r.url());
    });
    page.on('pageerror', (e) => w.errors.push(e.message));
    // A request the page's Content-Security-Policy blocks never reaches the
    // network, but Chromium reports the attempt on the console. Inline
    // handlers too: Chromium reports one as soon as any document tied to
    // the page parses it (DOMParser's included), so the sanitizer drops
    // them from the string before it parses (lib/markdown.ts,
    // withoutHandlers), and a report means markup reached a parser whole.
    page.on('console', (m) => {
      const text = m.text();
      if (m.type() === 'error' && /Content Security Policy/i.test(text)) w.violations.push(text);
    });
    page.on('dialog', (d) => {
      w.dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss().catch(() => {});
    });
    await openApp(page);
    await use(page);
    expect(w.dialogs, 'dialogs opened by the page').toEqual([]);
    if (!hostileArtifacts) {
      expect(w.errors, 'uncaught errors in the page').toEqual([]);
      expect(w.violations, 'what the Content-Security-Policy refused').toEqual([]);
    }
    expect(
      w.requests.filter((u) => !sameOrigin(u)),
      'requests that left the server origin',
    ).toEqual([]);
  },
  requests: async ({ page }, use) => use(watches.get(page)?.requests ?? []),
  dialogs: async ({ page }, use) => use(watches.get(page)?.dialogs ?? []),
  watch: async ({ page }, use) => use(watches.get(page)!),
});

// fromSubframe reports whether a request came from a frame inside a page
// (an artifact's), not from a page itself.
function fromSubframe(r: Request): boolean {
  try {
    return r.frame().parentFrame() !== null;
  } catch {
    return false; // a service worker's, or its frame is gone: not an artifact's
  }
}

function sameOrigin(u: string): boolean {
  if (u.startsWith('data:') || u.startsWith('blob:')) return true;
  return new URL(u).origin === ORIGIN;
}

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the tests with \`bash scripts/e2e.sh\` (or \`make e2e\`).`);
  return v;
}

/** Opens the app with the token and waits for the shell and its version. */
export async function openApp(page: Page, url = E2E_URL): Promise<void> {
  await page.goto(url);
  await expect(page.getByTestId('version')).toHaveText(/^v\S+/);
}

/** Starts a new session with the sidebar button. */
export async function newSession(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'New session' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New session');
}

export function composer(page: Page): Locator {
  return page.getByRole('textbox', { name: 'Message' });
}

/**
 * Types a message and presses Enter; returns the new turn, named by the
 * number SendMessage answered. Not by counting the turns on the page: the
 * conversation is a virtual list, so a turn scrolled far enough away is
 * not in the page at all (three tall answers leave only the last two),
 * and a session with other versions numbers its turns past their count.
 */
export async function send(page: Page, text: string): Promise<Locator> {
  await composer(page).fill(text);
  // SendMessage answers once the message's files are attached: reading a
  // PDF (PDFium compiles on first use) takes longer than an action's 10 s
  // on a loaded machine, so its own bound is the test's.
  const sent = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/call/SendMessage', { timeout: 0 });
  await composer(page).press('Enter');
  const res = await sent;
  expect(res.ok(), `SendMessage answered ${res.status()}`).toBe(true);
  const { seq } = (await res.json()) as { seq: number };
  const turn = page.getByRole('article', { name: `Turn ${seq}`, exact: true });
  await expect(turn).toBeVisible();
  await expect(turn.getByText(text, { exact: true })).toBeVisible();
  return turn;
}

/** Waits until the turn is over: its Replay action replaces Stop. */
export async function finished(turn: Locator, timeout = 30_000): Promise<void> {
  await expect(turn.getByRole('button', { name: 'Replay' })).toBeVisible({ timeout });
}

/** The rendered markdown answers of a turn. */
export function answer(turn: Locator): Locator {
  return turn.locator('.md');
}

/**
 * Opens a sidebar row's (or a project header's) ⋯ menu and picks an
 * item. The ⋯ button shows on hover or on focus within its row; focus is
 * used, because a list that is still settling can move the row from
 * under a hovering mouse and hide the button again.
 */
export async function pickFromMenu(page: Page, row: Locator, button: string, item: string): Promise<void> {
  await row.getByRole('button').first().focus();
  await row.getByRole('button', { name: button }).click();
  await page.getByRole('menuitem', { name: item }).click();
}

/** A token unique to this test run, for messages and file names. */
export function uid(): string {
  return `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

export interface Drawn {
  name: string;
  type: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
}

/**
 * Draws each image in the page (a small landscape, with a canvas) and
 * pastes them all into the composer at once, as a clipboard would.
 */
export async function pasteImages(page: Page, images: Drawn[]): Promise<void> {
  await composer(page).evaluate(async (el, images) => {
    const dt = new DataTransfer();
    for (const im of images) {
      const c = new OffscreenCanvas(im.width, im.height);
      const g = c.getContext('2d')!;
      const { width: w, height: h } = im;
      // A landscape: sky, sun, two ridges; enough shape to see it scaled.
      const sky = g.createLinearGradient(0, 0, 0, h);
      sky.addColorStop(0, im.type === 'image/png' ? '#4f7df0' : '#f0a24f');
      sky.addColorStop(1, '#dfe9ff');
      g.fillStyle = sky;
      g.fillRect(0, 0, w, h);
      g.fillStyle = '#ffd34d';
      g.beginPath();
      g.arc(w * 0.75, h * 0.3, h * 0.12, 0, Math.PI * 2);
      g.fill();
      for (const [y, color] of [
        [0.55, '#3c6e47'],
        [0.7, '#24452d'],
      ] as const) {
        g.fillStyle = color;
        g.beginPath();
        g.moveTo(0, h);
        for (let x = 0; x <= 8; x++) g.lineTo((w * x) / 8, h * (y + (x % 2 ? -0.12 : 0.05)));
        g.lineTo(w, h);
        g.fill();
      }
      const blob = await c.convertToBlob({ type: im.type, quality: 0.92 });
      dt.items.add(new File([blob], im.name, { type: im.type }));
    }
    // When the page was handed them: a test measures from here.
    (window as unknown as { pastedAt: number }).pastedAt = performance.now();
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  }, images);
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(OUT, name) });
}

/** Calls the API as the page does, with the page's token. */
export async function callAPI<T>(page: Page, method: string, ...args: unknown[]): Promise<T> {
  return page.evaluate(
    async ({ method, args }) => {
      const token = sessionStorage.getItem('agentdeck.token') ?? '';
      const res = await fetch(`/api/call/${method}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify(args),
      });
      if (!res.ok) throw new Error(`${method}: ${res.status} ${await res.text()}`);
      return res.json();
    },
    { method, args },
  );
}
