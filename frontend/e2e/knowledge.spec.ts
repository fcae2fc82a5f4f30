// Knowledge in the browser against the real backend: a document attached
// to a message becomes the session's; the model (fakellm's "cite my
// documents") searches it and cites [1]; the citation opens the passage
// highlighted in the document's text with its page, by mouse and by
// keyboard, and again after a reload; a number never given is marked
// unverified; the Documents panel lists, searches (saying how) and
// removes. In light and in dark, with screenshots.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, finished, newSession, send, shot, test, uid } from './fixtures';
import { citedTurn, REPORT } from './knowledge';

for (const scheme of ['light', 'dark'] as const) {
  test(`an attached document is searched, cited, and its passage opens highlighted (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const turn = await citedTurn(page);

    const unverified = turn.locator('.cite-unverified');
    await expect(unverified).toHaveCount(1);
    await expect(unverified).toHaveAttribute('title', 'unverified: no such source was given');
    await expect(unverified).toContainText('9');
    await expect(turn.getByText('Search documents for “revenue north”')).toBeVisible();

    const check = async () => {
      const cite = turn.getByRole('button', { name: /^Source 1: report\.md/ }).first();
      await cite.focus();
      await page.keyboard.press('Enter');
      const viewer = page.getByRole('dialog', { name: '[1] report.md' });
      await expect(viewer).toBeVisible();
      await expect(viewer.getByTestId('passage-where')).toHaveText(/^page 1 · .*Revenue$/);
      const cited = viewer.getByTestId('cited-passage');
      await expect(cited.locator('mark')).toHaveText('Revenue grew 12% in the north and 4% in the south.');
      await expect(cited).toBeInViewport();
      await expect(viewer.getByRole('heading', { name: 'Page 1' })).toBeVisible();
      await shot(page, `knowledge-viewer-${scheme}.png`);
      await page.keyboard.press('Escape');
      await expect(viewer).toBeHidden();
      await expect(cite).toBeFocused();
    };
    await check();
    await shot(page, `knowledge-answer-${scheme}.png`);

    const sources = turn.getByTestId('sources');
    await sources.locator('summary').click();
    await expect(sources.getByRole('button', { name: /\[1\] report\.md/ })).toBeVisible();

    await page.reload();
    await expect(turn.getByRole('button', { name: /^Source 1: report\.md/ }).first()).toBeVisible();
    await check();
  });
}

test('the Documents panel adds, lists, searches saying how, and removes after asking', async ({ page }) => {
  await newSession(page);
  await finished(await send(page, `remember this ${uid()}`));
  await page.getByRole('button', { name: 'Documents', exact: true }).click();
  const panel = page.getByRole('dialog', { name: /^Documents · / });
  await expect(panel.getByText('No documents yet')).toBeVisible();
  const chooser = page.waitForEvent('filechooser');
  await panel.getByRole('button', { name: 'Add files…' }).click();
  await (await chooser).setFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from(REPORT) });
  await expect(panel.getByText('notes.md')).toBeVisible();
  await expect(panel.getByText(/Markdown · \d+ passages? · word search/)).toBeVisible();

  await panel.getByRole('textbox', { name: 'Web page address' }).fill('ftp://example.com/x');
  await panel.getByRole('button', { name: 'Add web page' }).click();
  await expect(panel.getByRole('alert')).toContainText('starting with http:// or https://');

  await panel.getByRole('searchbox', { name: 'Search the documents' }).fill('costs');
  await panel.getByRole('button', { name: 'Search' }).click();
  await expect(panel.getByTestId('search-mode')).toHaveText('Word search only — pick an embedding model in Settings for meaning search');
  await expect(panel.getByRole('list', { name: 'Search results' })).toContainText('Costs fell 3%');
  await shot(page, 'knowledge-documents.png');

  await panel.getByRole('button', { name: 'Remove notes.md' }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove notes.md?' });
  await expect(confirm).toContainText('Turns that cited it keep their own copies');
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await expect(panel.getByText('No documents yet')).toBeVisible();
});

// The first thing many people attach: a PDF. report.pdf is the reader's
// own test file (backend/knowledge/extract/testdata, made by pdf_gen.go):
// four pages, headings, and a table on page 2. The citation opens the
// table's passage on page 2, and does again after a reload.
test('a PDF attached to a message is read page by page, and its cited passage opens on its page', async ({ page }) => {
  await newSession(page);
  await page.getByRole('button', { name: 'Attach files' }).click();
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Choose files…' }).click();
  const pdf = readFileSync(join(process.cwd(), '../backend/knowledge/extract/testdata/report.pdf'));
  await (await chooser).setFiles({ name: 'report.pdf', mimeType: 'application/pdf', buffer: pdf });
  const chip = page.getByRole('list', { name: 'Attached files' }).getByRole('listitem').filter({ hasText: 'report.pdf' });
  await expect(chip.getByTestId('attach-kind')).toHaveText('document');
  const turn = await send(page, 'Cite my documents: nitrate trout Wend');
  await finished(turn, 90_000);
  const check = async () => {
    const cite = turn.getByRole('button', { name: /^Source 1: report\.pdf/ }).first();
    await cite.click();
    const viewer = page.getByRole('dialog', { name: '[1] report.pdf' });
    await expect(viewer.getByTestId('passage-where')).toHaveText(/^page 2 · /);
    await expect(viewer.getByTestId('cited-passage').locator('mark')).toContainText('Upper Wend');
    await expect(viewer.getByRole('heading', { name: 'Page 2' })).toBeVisible();
    await shot(page, 'knowledge-pdf.png');
    await page.keyboard.press('Escape');
    await expect(viewer).toBeHidden();
  };
  await check();
  await page.reload();
  await check();
});
