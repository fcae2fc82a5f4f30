// A session with a document and an answer that cites it, for the
// knowledge tests and their axe audits: a Markdown document attached to
// the message (it becomes the session's document when sent), and
// fakellm's "cite my documents", which calls search_knowledge and cites
// [1] and a number it was never given, [9].
import type { Locator, Page } from '@playwright/test';
import { expect, finished, newSession, send } from './fixtures';

export const REPORT = `# Results

## Revenue

Revenue grew 12% in the north and 4% in the south.

## Costs

Costs fell 3% as the north office moved.
`;

/** Attaches report.md to the next message with the composer's file picker; waits for its chip. */
export async function attachReport(page: Page, name = 'report.md'): Promise<void> {
  await page.getByRole('button', { name: 'Attach files' }).click();
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Choose files…' }).click();
  await (await chooser).setFiles({ name, mimeType: 'text/markdown', buffer: Buffer.from(REPORT) });
  const chip = page.getByRole('list', { name: 'Attached files' }).getByRole('listitem').filter({ hasText: name });
  await expect(chip.getByTestId('attach-kind')).toHaveText('document');
}

/** A new session whose answer cites report.md; returns the finished turn. */
export async function citedTurn(page: Page): Promise<Locator> {
  await newSession(page);
  await attachReport(page);
  const turn = await send(page, 'Cite my documents: revenue north');
  await finished(turn);
  await expect(turn.getByRole('button', { name: /^Source 1: report\.md/ }).first()).toBeVisible();
  return turn;
}
