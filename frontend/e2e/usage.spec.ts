// Usage, cost and context you can see before and after you send. The
// context meter grows with the draft and warns near and over a small
// window (scripts/e2e.sh's "small" provider: 2,000 tokens, priced); a turn
// shows its cost; the Usage page draws the Go side's charts, in light and
// dark, exports CSV and opens a costly turn; and a spent budget ("capped",
// $0.10 a month) warns, then asks before a send goes past it. A fork and an
// import copy turns without counting them again, and a budget changed in
// Settings shows under the message box at once.
import { readFileSync } from 'node:fs';
import type { Locator, Page } from '@playwright/test';
import { composer, expect, finished, newSession, ORIGIN, send, shot, test, uid } from './fixtures';
import { pickModel } from './models';

async function onProvider(page: Page, value: string) {
  const [provider, model] = value.split('/') as [string, string];
  await pickModel(page.getByRole('form', { name: 'Message' }), provider, model);
}

/** The total the meter shows now, in tokens. */
async function total(bar: Locator): Promise<number> {
  return Number(await bar.getAttribute('data-total'));
}

test('the context meter grows with the draft, and warns near and over the window', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await newSession(page);
  await onProvider(page, 'small/smoke-model');
  const turn = await send(page, `Please remember the meter ${uid()}`);
  await finished(turn);
  // Its cost, at the price set on "small", beside its tokens.
  await expect(turn.getByTestId('turn-cost')).toHaveText(/^\$0\.\d{4}$/);

  const meter = page.getByTestId('context-meter');
  const bar = page.getByTestId('context-meter-bar');
  await expect(bar).toHaveAttribute('aria-valuemax', '2000');
  await expect(meter).toHaveAttribute('data-state', 'ok');
  await expect(page.getByTestId('context-warning')).toHaveCount(0);
  let last = await total(bar);
  expect(last).toBeGreaterThan(0);

  // A longer draft each time: the total grows every time, through near to over.
  const seen: string[] = [];
  let shotTaken = false;
  let draft = '';
  for (let i = 0; i < 40 && !seen.includes('over'); i++) {
    draft += 'The quarterly figures by region, with the notes from every team. '.repeat(16);
    await composer(page).fill(draft);
    await expect.poll(() => total(bar), { message: `the meter after ${draft.length} characters` }).toBeGreaterThan(last);
    last = await total(bar);
    const state = (await meter.getAttribute('data-state')) ?? '';
    if (seen.at(-1) !== state) seen.push(state);
    if (state === 'near' && !shotTaken) {
      const warning = page.getByTestId('context-warning');
      await expect(warning).toContainText('Near the window');
      await expect(warning.getByRole('button', { name: 'New session' })).toBeVisible();
      await expect(meter).toContainText('near the limit');
      // The parts behind the number, open for the screenshot.
      await meter.getByRole('button', { name: /tokens/ }).click();
      const details = meter.getByRole('group', { name: 'What the next message would send' });
      await expect(details).toContainText('Conversation (2 messages)');
      await expect(details).toContainText('2,000 tokens, set by you');
      await expect(details).toContainText(/estimated/);
      await shot(page, 'browser-meter.png');
      await page.keyboard.press('Escape');
      await expect(details).toBeHidden();
      shotTaken = true;
    }
  }
  expect(seen).toEqual(['ok', 'near', 'over']);
  await expect(page.getByTestId('context-warning')).toContainText('Over the window');
  await expect(bar).toHaveAttribute('aria-valuetext', /of 2,000 tokens \(\d+%\), over the window$/);
  await expect(bar).toHaveAttribute('aria-valuenow', '2000');

  // An empty draft: back to what the conversation alone takes.
  await composer(page).fill('');
  await expect(meter).toHaveAttribute('data-state', 'ok');
  await expect(page.getByTestId('context-warning')).toHaveCount(0);
});

test('the Usage page draws its charts in light and dark, exports CSV and opens a costly turn', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await newSession(page);
  await onProvider(page, 'small/smoke-model');
  const message = `Please remember the usage ${uid()}`;
  await finished(await send(page, message));

  await page.getByRole('button', { name: 'Usage and cost' }).click();
  const usage = page.getByTestId('usage-page');
  await expect(usage).toBeVisible();
  await expect(page).toHaveURL(/#\/usage$/);
  await expect(usage.getByRole('heading', { level: 1 })).toHaveText('Usage and cost');
  await expect(usage.getByRole('region', { name: 'Totals' })).toContainText(/Cost~?\$\d/);

  // The Go side's specs, drawn by the agent's chart renderer: bars a day, bars a group, a ring.
  // (A free model's bar of cost, or the ring's slice of cached tokens, may be empty: some mark shows.)
  const marks = async () => {
    for (const [id, mark] of [
      ['tokens', 'rect'],
      ['cost', 'rect'],
      ['groups', 'rect'],
      ['cached', 'arc'],
    ]) {
      await expect(
        usage.getByTestId(`usage-chart-${id}`).locator(`svg.marks g.mark-${mark}.role-mark > path`).filter({ visible: true }).first(),
      ).toBeVisible();
    }
  };
  await marks();
  const top = usage.getByTestId('usage-top-turns');
  const link = top.getByRole('link').filter({ hasText: message });
  await expect(link).toBeVisible();
  await usage.getByRole('button', { name: '7 d' }).click();
  await expect(usage.getByRole('button', { name: '7 d' })).toHaveAttribute('aria-pressed', 'true');
  await marks();
  await page.mouse.move(0, 0);
  await shot(page, 'browser-usage-light.png');

  // The system turning dark draws the charts again in its colours.
  const surface = () =>
    usage
      .getByTestId('usage-chart-tokens')
      .locator('figure')
      .evaluate((f) => getComputedStyle(f).backgroundColor);
  const light = await surface();
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  const dark = await surface();
  expect(dark).not.toBe(light);
  await expect(usage.getByTestId('usage-chart-tokens').locator('svg.marks')).toHaveCSS('background-color', dark);
  await marks();
  await shot(page, 'browser-usage-dark.png');

  // CSV: a file whose first line is the header, a row a group.
  const [download] = await Promise.all([page.waitForEvent('download'), usage.getByTestId('usage-export-csv').click()]);
  expect(download.suggestedFilename()).toMatch(/^agentdeck-usage-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}-by-model\.csv$/);
  const csv = readFileSync((await download.path())!, 'utf8');
  const lines = csv.trim().split('\n');
  expect(lines[0]).toBe('model,calls,input_tokens,output_tokens,cached_input_tokens,reasoning_tokens,cost_usd,unpriced_calls,estimated');
  expect(lines.some((l) => l.startsWith('smoke-model,'))).toBe(true);

  // A costly turn opens where it was.
  await link.click();
  await expect(usage).toBeHidden();
  const turn = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(turn.getByText(message, { exact: true })).toBeVisible();
  await expect(page).toHaveURL(/#\/s\/[^/]+\/t\/[^/]+$/);
  await page.emulateMedia({ colorScheme: 'light' });
});

test("a provider's budget warns past 80%, then asks before a send goes past it", async ({ page }) => {
  await newSession(page);
  await onProvider(page, 'capped/smoke-model');
  const first = await send(page, `Please remember the budget ${uid()}`);
  await finished(first);
  const warning = page.getByTestId('budget-warning');
  await expect(warning).toContainText(/\d+% of this month's budget for capped is spent \(\$0\.\d\d of \$0\.10\)\./);

  await finished(await send(page, `Please remember it again ${uid()}`));
  await expect(warning).toContainText(
    /This month's budget for capped is spent \(\$0\.\d\d of \$0\.10\)\. Sending will ask before going over it\./,
  );

  const third = `Please remember once more ${uid()}`;
  await composer(page).fill(third);
  await composer(page).press('Enter');
  const dialog = page.getByRole('dialog', { name: "This month's budget is spent" });
  await expect(dialog).toContainText("This month's budget for capped is spent");
  await dialog.getByRole('button', { name: 'Send anyway' }).click();
  const turn = page.getByRole('article', { name: 'Turn 3', exact: true });
  await expect(turn.getByText(third, { exact: true })).toBeVisible();
  await finished(turn);
  await expect(turn.getByTestId('turn-cost')).toHaveText(/^\$0\.\d\d$/);
});

/** Calls the backend as the page does (browser mode's /api/call). */
async function call<T>(page: Page, method: string, ...args: unknown[]): Promise<T> {
  const res = await page.request.post(`${ORIGIN}/api/call/${method}`, { data: args });
  expect(res.ok(), `${method}: ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

interface ProviderRow {
  name: string;
  budget?: { monthly_usd: number; over_limit: string };
  [k: string]: unknown;
}

/**
 * A provider of this test's own: "small" (the fake model, priced) under a
 * new name, with a budget if given, so what it spent is this test's
 * alone while other tests run beside it. The page is reloaded to list it.
 */
async function ownProvider(page: Page, budget?: number): Promise<string> {
  const small = (await call<ProviderRow[]>(page, 'ListProviders')).find((p) => p.name === 'small');
  expect(small).toBeTruthy();
  const name = `own-${uid()}`;
  const { has_key: _k, masked_key: _m, ...provider } = small!;
  await call(page, 'SaveProvider', {
    provider: { ...provider, name, budget: budget ? { monthly_usd: budget, over_limit: 'ask' } : undefined },
  });
  await page.reload();
  return name;
}

interface UsageSumRow {
  key: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
}

/** What the provider's calls add up to on the Usage page's report. */
async function providerUsage(page: Page, name: string): Promise<UsageSumRow | undefined> {
  const view = await call<{ report: { rows: UsageSumRow[] } }>(page, 'Usage', { by: 'provider' });
  return view.report.rows.find((r) => r.key === name);
}

test('a fork and an import leave usage as it was, and their copied turns say so', async ({ page }) => {
  await newSession(page);
  const provider = await ownProvider(page);
  await newSession(page);
  await onProvider(page, `${provider}/smoke-model`);
  const message = `Please remember the copies ${uid()}`;
  const turn = await send(page, message);
  await finished(turn);
  await expect(turn.getByTestId('turn-cost')).toHaveText(/^\$0\.\d{4}$/);
  await expect(turn.getByTestId('turn-copied')).toHaveCount(0);
  const before = await providerUsage(page, provider);
  expect(before?.calls).toBeGreaterThan(0);
  const sessionId = await page.evaluate(() => location.hash.split('/')[2] ?? '');

  // Fork from the turn: the copy shows its cost, marked, and is not counted.
  await turn.getByRole('button', { name: 'More actions' }).click();
  await turn.getByRole('menuitem', { name: 'Fork from here' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${message} (fork)`);
  const forked = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(forked.getByTestId('turn-cost')).toHaveText(/^\$0\.\d{4}$/);
  await expect(forked.getByTestId('turn-copied')).toHaveText(`copied from “${message}”, not counted`);
  await shot(page, 'browser-usage-fork-copied.png');
  expect(await providerUsage(page, provider)).toEqual(before);

  // Import the session's export through the sidebar: the same.
  const { content } = await call<{ content: string }>(page, 'ExportSession', sessionId, 'json', {});
  await page
    .locator('input[type="file"][accept*="json"]')
    .setInputFiles({ name: 'copies.json', mimeType: 'application/json', buffer: Buffer.from(content) });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`${message} (imported)`);
  const imported = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(imported.getByTestId('turn-copied')).toHaveText('copied from an imported file, not counted');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'browser-usage-import-copied-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });
  expect(await providerUsage(page, provider)).toEqual(before);

  // The Usage page lists the turn once: the copies are not costly turns.
  await page.getByRole('button', { name: 'Usage and cost' }).click();
  const usage = page.getByTestId('usage-page');
  await expect(usage).toBeVisible();
  await expect(usage.getByTestId('usage-top-turns').getByRole('link').filter({ hasText: message })).toHaveCount(1);
});

test('a budget changed in Settings shows under the message box at once', async ({ page }) => {
  await newSession(page);
  // $0.10 a month: one answer of the fake model at small's price is far under 80%.
  const provider = await ownProvider(page, 0.1);
  await newSession(page);
  await onProvider(page, `${provider}/smoke-model`);
  await finished(await send(page, `Please remember the budget line ${uid()}`));
  const warning = page.getByTestId('budget-warning');
  await expect(page.getByTestId('context-meter')).toBeVisible();
  await expect(warning).toHaveCount(0);

  // A budget so small that it is spent: the line shows, with no reload and nothing typed.
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  await settings.getByRole('listitem').filter({ hasText: provider }).getByRole('button', { name: 'Edit' }).click();
  const monthly = settings.getByLabel('Monthly budget, $');
  await monthly.fill('0.000001');
  await settings.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(monthly).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(settings).toBeHidden();
  await expect(warning).toContainText(`This month's budget for ${provider} is spent`);
  await shot(page, 'browser-budget-changed.png');

  // And back to no budget: the line goes.
  await warning.getByRole('button', { name: 'Budget settings' }).click();
  await expect(settings.getByLabel('Monthly budget, $')).toBeVisible();
  await settings.getByLabel('Monthly budget, $').fill('');
  await settings.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(settings.getByLabel('Monthly budget, $')).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(warning).toHaveCount(0);
});
