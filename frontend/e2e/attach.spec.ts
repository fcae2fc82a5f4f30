// Attachments in browser mode: the page knows a picked, dropped or pasted
// file only by its bytes, so it uploads them (UploadAttachment, with the
// token) and attaches the path the server stored them at. fakellm's
// "list my data" calls list_data and repeats what it said, so the answer
// shows the tables the turn had.
import { existsSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { answer, composer, expect, finished, newSession, send, shot, test } from './fixtures';

/** Hands the page a file as a drop on the conversation, or a paste into the composer. */
async function dropOrPaste(page: Page, how: 'drop' | 'paste', name: string, content: string | number, type: string): Promise<void> {
  const dt = await page.evaluateHandle(
    ([name, content, type]) => {
      const dt = new DataTransfer();
      // A number is a size: that many bytes, made here rather than sent over.
      const body = typeof content === 'number' ? new Uint8Array(content) : content;
      dt.items.add(new File([body], name as string, { type: type as string }));
      return dt;
    },
    [name, content, type] as const,
  );
  if (how === 'drop') {
    await page.locator('[data-region="main"]').dispatchEvent('drop', { dataTransfer: dt });
  } else {
    await composer(page).evaluate(
      (el, dt) => el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true })),
      dt,
    );
  }
}

test('a picked, a dropped and a pasted file are uploaded, attached, and read by the turn', async ({ page, requests }) => {
  const names = ['sales.csv', 'regions.tsv', 'targets.json'];
  await newSession(page);
  await page.getByRole('button', { name: 'Attach files' }).click();
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Choose files…' }).click();
  await (
    await chooser
  ).setFiles({ name: 'sales.csv', mimeType: 'text/csv', buffer: Buffer.from('region,revenue\nNorth,42000\nSouth,31500\nEast,18200\n') });
  await dropOrPaste(page, 'drop', 'regions.tsv', 'region\tmanager\nNorth\tAda\n', 'text/tab-separated-values');
  await dropOrPaste(
    page,
    'paste',
    'targets.json',
    '[{"region":"North","target":40000},{"region":"South","target":30000}]',
    'application/json',
  );

  // Each becomes a chip once stored (in whatever order the uploads end),
  // titled with the path the server stored it at, ending in its name, and
  // marked as what it becomes.
  const chips = page.getByRole('list', { name: 'Attached files' }).getByRole('listitem');
  const stored: string[] = [];
  for (const name of names) {
    const chip = chips.filter({ has: page.getByText(name, { exact: true }) });
    await expect(chip).toHaveAttribute('title', new RegExp(`/uploads/[^/]+/${name.replace('.', '\\.')}$`));
    // A table, not a document: it joins the session's tables when sent.
    await expect(chip.getByTestId('attach-kind')).toHaveText('table');
    stored.push((await chip.getAttribute('title'))!);
  }
  await expect(chips).toHaveCount(3);
  for (const path of stored) expect(existsSync(path), `${path} on the server`).toBe(true);
  expect(requests.filter((u) => u.endsWith('/api/call/UploadAttachment'))).toHaveLength(3);
  await shot(page, 'browser-attachments.png');

  const turn = await send(page, 'Please list my data');
  await finished(turn);
  const said = answer(turn).last();
  await expect(said).toContainText('The data tool said:');
  await expect(said).toContainText('sales (from sales.csv, 3 rows)');
  await expect(said).toContainText('regions (from regions.tsv, 1 row)');
  await expect(said).toContainText('targets (from targets.json, 2 rows)');
  await expect(said).toContainText('Columns: region TEXT, revenue INTEGER');
  // Sent: the chips are gone, and so are the uploads (the rows are the session's now).
  await expect(page.getByRole('list', { name: 'Attached files' })).toHaveCount(0);
  for (const path of stored) expect(existsSync(path), `${path} after the message`).toBe(false);
});

test('a file over 20 MB is refused at once, saying why, and never sent', async ({ page, requests }) => {
  await newSession(page);
  await dropOrPaste(page, 'paste', 'huge.csv', 21 * (1 << 20) + 1, 'text/csv');
  const error = page.getByRole('alert').filter({ hasText: 'huge.csv' });
  await expect(error).toHaveText(
    /huge\.csv is 21\.0 MB, over the 20 MB a file sent from the page may have\. Attach a smaller file, or attach this one by its path/,
  );
  expect(requests.filter((u) => u.endsWith('/api/call/UploadAttachment'))).toEqual([]);
  await expect(page.getByRole('list', { name: 'Attached files' })).toHaveCount(0);
  await error.getByRole('button', { name: 'Dismiss the error about huge.csv' }).click();
  await expect(error).toHaveCount(0);
});
