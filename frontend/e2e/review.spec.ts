// Human review (issue 47): a turn rated down with a score, a label taken
// from the completion list and a note, kept across a reload; a tool step
// rated; the sidebar kept to the sessions rated down; the session's JSON
// export carrying the reviews; and the review queue walked by keyboard
// alone. The turns are the scripted model's "time travel" scenario (one
// update_plan call, then an answer), so a turn has a tool step (tool1).
import type { Page } from '@playwright/test';
import { callAPI, expect, finished, newSession, send, shot, test, uid } from './fixtures';

interface TurnRef {
  turn_id: string;
  session_id: string;
}

interface Review {
  turn_id: string;
  step: string;
  thumb: number;
  score: number;
  labels: string[] | null;
  note: string;
}

/** Waits until the turn is no longer running. */
async function ended(page: Page, turnId: string): Promise<void> {
  await expect
    .poll(async () => (await callAPI<{ state: string }>(page, 'GetTurn', turnId, false)).state, { timeout: 30_000 })
    .toBe('completed');
}

/** A session with one ended turn, made through the API the page uses. */
async function sessionWithTurn(page: Page, title: string): Promise<TurnRef> {
  const s = await callAPI<{ id: string }>(page, 'CreateSession', { title });
  const t = await callAPI<TurnRef>(page, 'SendMessage', { session_id: s.id, message: `time travel ${title}` });
  await ended(page, t.turn_id);
  return t;
}

test('a turn rated down with a score, a completed label and a note is kept; a tool step is rated; the sidebar filters; the export has it', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const id = uid();
  const label = `wrong tool ${id}`;
  // A session nobody rates: the "rated down" filter leaves it out.
  await sessionWithTurn(page, `Unrated ${id}`);
  await page.reload();

  await newSession(page);
  const turn = await send(page, `time travel review ${id}`);
  await finished(turn);
  const seq = (await turn.getAttribute('aria-label'))!.replace('Turn ', '');

  // The tool step: a thumb down, and the label typed whole (nobody used it yet).
  const tool = 'tool result 1: update_plan';
  await turn.getByRole('button', { name: `Bad: rate ${tool} down` }).click();
  await expect(turn.getByRole('button', { name: `Bad: rate ${tool} down` })).toHaveAttribute('aria-pressed', 'true');
  await turn.getByRole('button', { name: `Review ${tool}: score, labels and note` }).click();
  const stepLabels = turn.getByRole('combobox', { name: `Labels of ${tool}` });
  await stepLabels.fill(label);
  await stepLabels.press('Enter');
  await expect(turn.getByTestId('review-line').first()).toHaveText(label);
  await turn.getByRole('button', { name: `Review ${tool}: score, labels and note` }).click();

  // The turn: down, 2 of 5, the label from the completion list, a note.
  const name = `turn ${seq}`;
  const down = turn.getByRole('button', { name: `Bad: rate ${name} down` });
  await down.click();
  await expect(down).toHaveAttribute('aria-pressed', 'true');
  await turn.getByRole('button', { name: `Review ${name}: score, labels and note` }).click();
  await turn.getByRole('button', { name: 'Score 2 of 5' }).click();
  await expect(turn.getByRole('button', { name: 'Score 2 of 5' })).toHaveAttribute('aria-pressed', 'true');
  const labels = turn.getByRole('combobox', { name: `Labels of ${name}` });
  await labels.pressSequentially(`wrong tool ${id.slice(0, 4)}`);
  const option = page.getByRole('option', { name: new RegExp(`^${label}`) });
  await expect(option).toBeVisible();
  await labels.press('ArrowDown');
  await expect(labels).toHaveAttribute('aria-activedescendant', (await option.getAttribute('id'))!);
  await labels.press('Tab');
  await expect(labels).toHaveValue('');
  const note = turn.getByRole('textbox', { name: `Note on ${name}` });
  const saved = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/call/SaveReview' && r.request().postData()!.includes('used the plan'),
  );
  await note.fill('used the plan tool for a lookup');
  await note.press('Enter');
  await saved;
  await expect(turn.getByTestId('review-line').last()).toHaveText(`2/5 · ${label} · note`);
  await page.emulateMedia({ colorScheme: 'light' });
  await shot(page, 'browser-review-turn-light.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'browser-review-turn-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  // Kept: a reload reads it back, one call for the page's turns.
  const sessionId = (await page.evaluate(() => location.hash)).split('/')[2]!;
  await page.reload();
  const again = page.getByRole('article', { name: `Turn ${seq}`, exact: true });
  await expect(again.getByRole('button', { name: `Bad: rate ${name} down` })).toHaveAttribute('aria-pressed', 'true');
  await expect(again.getByTestId('review-line').last()).toHaveText(`2/5 · ${label} · note`);
  await expect(again.getByTestId('review-line').first()).toHaveText(label);
  await expect(again.getByRole('button', { name: `Bad: rate ${tool} down` })).toHaveAttribute('aria-pressed', 'true');

  // The sidebar, kept to the sessions rated down.
  await page.getByRole('button', { name: 'Filter by review' }).click();
  await page.getByRole('group', { name: 'Filter by review' }).getByRole('combobox', { name: 'Rating' }).selectOption('down');
  await expect(page.getByTestId('review-scope')).toContainText('Rated down');
  const list = page.locator('#sidebar-panel');
  await expect(list.getByText(`time travel review ${id}`)).toBeVisible();
  await expect(list.getByText(`Unrated ${id}`)).toHaveCount(0);
  await page.getByRole('button', { name: 'Clear the review filter' }).click();
  await expect(list.getByText(`Unrated ${id}`)).toBeVisible();

  // The JSON export carries both reviews.
  const { content } = await callAPI<{ content: string }>(page, 'ExportSession', sessionId, 'json', {});
  const doc = JSON.parse(content) as { version: number; turns: { reviews?: Review[] }[] };
  const reviews = doc.turns.flatMap((t) => t.reviews ?? []);
  expect(doc.version).toBe(11);
  expect(reviews.find((r) => r.step === '')).toMatchObject({
    thumb: -1,
    score: 2,
    labels: [label],
    note: 'used the plan tool for a lookup',
  });
  expect(reviews.find((r) => r.step === 'tool1')).toMatchObject({ thumb: -1, labels: [label] });
});

test('the review queue is walked by keyboard alone', async ({ page }) => {
  test.setTimeout(150_000);
  const id = uid();
  const tag = `queue ${id}`;
  const turns: TurnRef[] = [];
  for (const n of [1, 2, 3]) {
    const t = await sessionWithTurn(page, `Queue ${n} ${id}`);
    await callAPI(page, 'SaveReview', { turn_id: t.turn_id, step: '', thumb: 0, score: 0, labels: [tag], note: '' });
    turns.push(t);
  }
  await page.reload();

  // Ctrl+Shift+E opens the queue; its filter by keys: Rating "Reviewed", the label.
  await page.keyboard.press('Control+Shift+E');
  const queue = page.getByTestId('review-queue');
  await expect(queue).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(queue.getByRole('button', { name: 'Make a suite from these' })).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(queue.getByRole('combobox', { name: 'Rating' })).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(queue.getByRole('combobox', { name: 'Rating' })).toHaveValue('reviewed');
  await page.keyboard.press('Tab');
  await page.keyboard.type(tag);
  await page.keyboard.press('Enter');
  await expect(queue.getByTestId('queue-count')).toHaveText(`3 turns · Reviewed · “${tag}”`);
  await expect(queue.getByTestId('queue-progress')).toHaveText('1 of 3');
  await page.keyboard.press('Escape');
  await expect(queue).toBeFocused();

  // The newest first: rate it down, 2 of 5, a label, a note.
  const item = queue.getByTestId('queue-item');
  await expect(item).toHaveAttribute('data-turn', turns[2]!.turn_id);
  await page.keyboard.press('-');
  await page.keyboard.press('2');
  await page.keyboard.press('l');
  await expect(page.locator('#queue-labels')).toBeFocused();
  await page.keyboard.type('slow');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  await expect(queue).toBeFocused();
  await page.keyboard.press('n');
  await expect(page.locator('#queue-note')).toBeFocused();
  await page.keyboard.type('too slow');
  const noted = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/call/SaveReview' && r.request().postData()!.includes('too slow'),
  );
  await page.keyboard.press('Enter');
  await noted;
  await page.keyboard.press('Escape');
  await expect(item.getByRole('button', { name: /^Bad: rate turn/ }).last()).toHaveAttribute('aria-pressed', 'true');
  await expect(item.getByRole('button', { name: 'Score 2 of 5' }).last()).toHaveAttribute('aria-pressed', 'true');
  await page.emulateMedia({ colorScheme: 'light' });
  await shot(page, 'browser-review-queue-light.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'browser-review-queue-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  // Next, rate up; next; back; the arrows too.
  await page.keyboard.press('j');
  await expect(queue.getByTestId('queue-progress')).toHaveText('2 of 3');
  await expect(item).toHaveAttribute('data-turn', turns[1]!.turn_id);
  const rated = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/call/SaveReview' && r.request().postData()!.includes(turns[1]!.turn_id),
  );
  await page.keyboard.press('+');
  await rated;
  await expect(item.getByRole('button', { name: /^Good: rate turn/ }).last()).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('ArrowRight');
  await expect(queue.getByTestId('queue-progress')).toHaveText('3 of 3');
  await page.keyboard.press('k');
  await page.keyboard.press('ArrowLeft');
  await expect(queue.getByTestId('queue-progress')).toHaveText('1 of 3');

  // Every save was answered above (the note's and the thumb's), so what
  // is stored now is what the keys did.
  const rs = (await callAPI<Review[] | null>(page, 'ReviewsFor', [turns[2]!.turn_id, turns[1]!.turn_id])) ?? [];
  expect(
    rs
      .map((r) => `${r.turn_id === turns[2]!.turn_id ? 'newest' : 'second'}:${r.thumb}:${r.score}:${(r.labels ?? []).join('+')}:${r.note}`)
      .sort(),
  ).toEqual([`newest:-1:2:${tag}+slow:too slow`, `second:1:0:${tag}:`]);

  // "Make a suite from these": the queue's three turns become three cases.
  await queue.getByTestId('make-suite').click();
  const dialog = page.getByRole('dialog', { name: 'Make a suite from these turns' });
  await dialog.getByTestId('make-suite-name').fill(`From the queue ${id}`);
  await dialog.getByRole('button', { name: 'Make the suite' }).click();
  await expect(queue.getByRole('status').filter({ hasText: 'cases made' })).toContainText('3 cases made');
  await queue.focus();

  // o opens the turn in its session; Ctrl+Shift+E comes back, and Esc leaves.
  await page.keyboard.press('o');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Queue 3 ${id}`);
  await page.keyboard.press('Control+Shift+E');
  await expect(page.getByTestId('review-queue')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('review-queue')).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(`Queue 3 ${id}`);
});
