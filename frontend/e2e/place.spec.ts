// The window keeps its place: a search hit opens its session at the
// matching turn, scrolled to and marked; the address names the session and
// turn, so a reload (and Back and Forward) come back to them; the sidebar
// marks the sessions whose turn is running.
//
// The long session is imported (the sidebar's Import), built from a real
// export of a one-turn session so its shape is what the app writes.
import { randomUUID } from 'node:crypto';
import type { Page } from '@playwright/test';
import { expect, finished, newSession, ORIGIN, send, shot, test, uid } from './fixtures';

const TURNS = 40;
const HIT = 5;

interface ExportDoc {
  session: { id: string; title: string };
  turns: Array<Record<string, unknown> & { result: Record<string, unknown> }>;
  captures?: unknown[];
}

/** Calls the Go API as the page does (the page's cookie carries the token). */
async function call<T>(page: Page, method: string, ...args: unknown[]): Promise<T> {
  const res = await page.request.post(`${ORIGIN}/api/call/${method}`, { data: args });
  expect(res.ok(), `${method}: ${await res.text()}`).toBe(true);
  return (await res.json()) as T;
}

/** A session of TURNS turns; turn HIT alone holds the word. */
async function importLongSession(page: Page, word: string): Promise<string> {
  await newSession(page);
  const seed = await send(page, `Please remember this ${uid()}`);
  await finished(seed);
  const sessionId = await page.evaluate(() => location.hash.split('/')[2] ?? '');
  expect(sessionId).not.toBe('');
  const { content } = await call<{ content: string }>(page, 'ExportSession', sessionId, 'json', {});
  const doc = JSON.parse(content) as ExportDoc;
  const template = doc.turns[0]!;
  const title = `Long history ${uid()}`;
  doc.session = { ...doc.session, id: randomUUID(), title };
  // The seed's recorded model calls belong to its turn, which is not copied.
  delete doc.captures;
  doc.turns = Array.from({ length: TURNS }, (_, i) => {
    const n = i + 1;
    const question = `Question ${n}: tell me about part ${n} of the plan.`;
    const body = Array.from(
      { length: 6 },
      (_, p) => `Paragraph ${p + 1} of answer ${n}: the plan holds steady, nothing here stands out, and the numbers agree with last week.`,
    );
    if (n === HIT) body.splice(3, 0, `This part mentions the ${word} clause, which matters later.`);
    const answer = body.join('\n\n');
    return {
      ...template,
      id: randomUUID(),
      seq: n,
      user_message: question,
      final_text: answer,
      messages: [
        { role: 'user', content: question },
        { role: 'assistant', content: answer },
      ],
      events: [],
      stages: [],
      model_calls: [],
      tool_calls: [],
      approvals: [],
      run: undefined,
      result: {
        ...template.result,
        final_text: answer,
        messages: null,
        stages: undefined,
        model_calls: null,
        tool_calls: null,
        plan_steps: null,
      },
    };
  });
  await page
    .locator('input[type="file"][accept*="json"]')
    .setInputFiles({ name: 'long.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc)) });
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  return title;
}

/** The turn the list marks, and the article in it. */
function marked(page: Page) {
  return page.locator('[data-found]');
}

async function highlighted(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const h = (CSS as unknown as { highlights?: Map<string, Set<Range>> }).highlights?.get('search-match');
    return h ? [...h].map((r) => r.toString()) : [];
  });
}

test('a search hit lands on its turn, marked, and a reload and Back and Forward keep the place', async ({ page }) => {
  const word = `zephyrlock${uid()}`;
  const title = await importLongSession(page, word);
  // Opened at its latest turn: the turn to find is far above.
  await expect(page.getByRole('article', { name: `Turn ${TURNS}`, exact: true })).toBeInViewport();
  await expect(page.getByRole('article', { name: `Turn ${HIT}`, exact: true })).toHaveCount(0);

  await newSession(page);
  await page.keyboard.press('Control+k');
  await page.getByRole('searchbox', { name: 'Search sessions' }).fill(word);
  const hit = page.getByRole('button').filter({ hasText: title });
  await expect(hit).toHaveCount(1);
  await expect(hit).toContainText(`#${HIT}`);
  await hit.click();

  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  const found = marked(page);
  await expect(found).toHaveCount(1);
  await expect(found.getByRole('article', { name: `Turn ${HIT}`, exact: true })).toBeInViewport();
  await expect(found).toContainText(`Search match: “${word.toLowerCase()}”`);
  // The word is painted in the turn's text (CSS Custom Highlight API).
  await expect(found.locator('[data-marks]')).toHaveAttribute('data-marks', '1');
  expect(await highlighted(page)).toEqual([word]);
  const hash = await page.evaluate(() => location.hash);
  expect(hash).toMatch(/^#\/s\/[0-9a-f-]+\/t\/[0-9a-f-]+$/);
  expect(page.url()).not.toContain('token=');
  await shot(page, 'browser-search-hit.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'browser-search-hit-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  // A reload: the address alone brings the session and the turn back.
  await page.reload();
  await expect(page.getByTestId('version')).toHaveText(/^v\S+/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  await expect(marked(page).getByRole('article', { name: `Turn ${HIT}`, exact: true })).toBeInViewport();
  await expect(marked(page).locator('[data-marks]')).toHaveAttribute('data-marks', '1');
  expect(await highlighted(page)).toEqual([word]);
  expect(await page.evaluate(() => location.hash)).toBe(hash);

  // Back goes to the new session the search started from; Forward returns.
  await page.goBack();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New session');
  await page.goForward();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  await expect(marked(page).getByRole('article', { name: `Turn ${HIT}`, exact: true })).toBeInViewport();

  // Clearing the mark leaves the session in the address, and the list where it is.
  await page.getByRole('button', { name: 'Stop marking this turn' }).click();
  await expect(marked(page)).toHaveCount(0);
  expect(await page.evaluate(() => location.hash)).toBe(hash.replace(/\/t\/.*$/, ''));
  expect(await highlighted(page)).toEqual([]);
});

test('an address naming a session that does not exist says so and shows a new session', async ({ page }) => {
  await page.goto(`${ORIGIN}/#/s/${randomUUID()}/t/${randomUUID()}`);
  await expect(page.getByRole('alert').filter({ hasText: /There is no session .* It may have been deleted\./ })).toBeVisible();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New session');
  await expect(page.getByRole('navigation', { name: 'Session list' })).toBeVisible();
  expect(await page.evaluate(() => location.hash)).toBe('');
});

test('the sidebar marks a session while its turn runs, also after a reload, and not once it ends', async ({ page }) => {
  // A turn waiting for an approval runs until it is answered: time to look.
  const workspace = process.env.E2E_WORKSPACE ?? '';
  expect(workspace, 'E2E_WORKSPACE from the global setup').not.toBe('');
  await newSession(page);
  const folder = page.getByRole('textbox', { name: 'Workspace folder' });
  await folder.fill(workspace);
  await folder.press('Tab');
  const title = `Please write a file named running-${uid()}.txt`;
  const list = page.getByRole('navigation', { name: 'Session list' });
  await send(page, title);
  const item = list.getByRole('button', { name: `${title} running`, exact: true });
  await expect(item).toBeVisible();
  await expect(item.getByTitle('A turn is running')).toBeVisible();

  // After a reload the mark comes from the store's running_turn.
  await page.reload();
  await expect(page.getByTestId('version')).toHaveText(/^v\S+/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);
  await expect(item).toBeVisible();
  const turn = page.getByRole('article', { name: 'Turn 1', exact: true });
  const ask = turn.getByRole('region', { name: 'Approval needed for write_file' });
  await expect(ask).toBeVisible();
  await shot(page, 'browser-running.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'browser-running-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  await ask.getByRole('button', { name: 'Deny', exact: true }).click();
  await finished(turn);
  await expect(list.getByRole('button', { name: title, exact: true })).toBeVisible();
  await expect(item).toHaveCount(0);
});
