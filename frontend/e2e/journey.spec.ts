// Issue 42's journey, on the real backend: a project with instructions,
// a session started in it whose model call carries them (fakellm's "show
// settings" answer says what the request held), the session's own
// sampling on top, archive and "Show archived", the / palette with a
// variable by keyboard only, and a ChatGPT export imported with its
// branches as versions. projects.spec.ts covers moving, pins, tags, the
// tag filter and deleting a project; a11y.spec.ts audits the screens.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { answer, callAPI, composer, expect, finished, newSession, pickFromMenu, send, shot, test, uid } from './fixtures';

const list = (page: Page) => page.getByRole('navigation', { name: 'Session list' });

test("a project's instructions and a session's sampling reach the model, and stay with the turn", async ({ page }) => {
  const id = uid();
  const name = `Pirates ${id}`;
  await page.getByRole('button', { name: 'New project' }).click();
  const naming = page.getByRole('dialog', { name: 'New project' });
  await naming.getByLabel('Project name').fill(name);
  await naming.getByRole('button', { name: 'Create project' }).click();
  await expect(naming).toBeHidden();

  // The project's instructions, from its header's menu.
  const head = list(page)
    .locator('[data-row^="group:"]')
    .filter({ has: page.getByRole('button', { name: new RegExp(`^${name}`) }) });
  await pickFromMenu(page, head, `Actions for project ${name}`, 'Settings…');
  const projectDialog = page.getByRole('dialog', { name: `Project settings: ${name}` });
  await projectDialog.getByLabel('Instructions (system prompt)').fill(`Answer like a pirate ${id}.`);
  await shot(page, 'browser-project-settings.png');
  await projectDialog.getByRole('button', { name: 'Save' }).click();
  await expect(projectDialog).toBeHidden();

  // A session started in the project sends them.
  await pickFromMenu(page, head, `Actions for project ${name}`, 'New session in this project');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('New session');
  const one = await send(page, `show settings ${id}`);
  await finished(one);
  await expect(answer(one).last()).toContainText(`Answer like a pirate ${id}.`);
  await expect(answer(one).last()).toContainText('Sent: no sampling fields.');

  // The session's own temperature, from its header, goes with the next turn.
  await page.getByRole('button', { name: 'Session settings' }).click();
  const sessionDialog = page.getByRole('dialog', { name: 'Session settings' });
  await expect(sessionDialog.getByTestId('origin').first()).toContainText(`from project ${name}`);
  await sessionDialog.getByRole('spinbutton', { name: 'Temperature' }).fill('0.3');
  await shot(page, 'browser-session-settings.png');
  await sessionDialog.getByRole('button', { name: 'Save' }).click();
  await expect(sessionDialog).toBeHidden();
  const two = await send(page, `show settings again ${id}`);
  await finished(two);
  await expect(answer(two).last()).toContainText(`Answer like a pirate ${id}.`);
  await expect(answer(two).last()).toContainText('temperature=0.3');

  // The first turn keeps how it ran: its diagnostics show no temperature.
  await one.getByRole('button', { name: 'Diagnostics' }).click();
  const panel = page.getByRole('complementary', { name: 'Diagnostics' });
  await expect(panel).toContainText(`Answer like a pirate ${id}.`);
  await expect(panel).not.toContainText('0.3');
  await shot(page, 'browser-turn-settings.png');
});

test('archive hides a session from the list without deleting it; Show archived brings it back', async ({ page }) => {
  await newSession(page);
  const title = `Archive me ${uid()}`;
  await finished(await send(page, title));
  const row = list(page).locator('li[data-session]').filter({ hasText: title });
  await pickFromMenu(page, row, `More actions for ${title}`, 'Archive');
  // The open session stays listed, marked, until another is opened.
  await expect(row).toContainText('Archived');
  await newSession(page);
  await expect(row).toBeHidden();

  const showArchived = page.getByRole('button', { name: 'Show archived sessions' });
  await showArchived.click();
  await expect(showArchived).toHaveAttribute('aria-pressed', 'true');
  await expect(row).toBeVisible();
  await expect(row).toContainText('Archived');
  await pickFromMenu(page, row, `More actions for ${title}`, 'Unarchive');
  await expect(row).not.toContainText('Archived');
  await showArchived.click();
  await expect(showArchived).toHaveAttribute('aria-pressed', 'false');
  await expect(row).toBeVisible();
  await expect(row).not.toContainText('Archived');
});

test('the / palette fills a saved prompt with a variable, by keyboard only', async ({ page }) => {
  const id = uid();
  const name = `Translate ${id}`;
  await callAPI(page, 'SavePrompt', {
    id: '',
    project_id: '',
    name,
    description: 'into a language',
    body: 'Translate into {{language}}: remember the word ' + id,
    created_at: '0001-01-01T00:00:00Z',
    updated_at: '0001-01-01T00:00:00Z',
    variables: null,
  });
  await newSession(page);
  const box = composer(page);
  await box.focus();
  await page.keyboard.type('/');
  const palette = page.getByRole('listbox', { name: 'Prompts and commands' });
  await expect(palette).toBeVisible();
  await page.keyboard.type(`transl`);
  await expect(palette.getByRole('option').first()).toContainText(name);
  await shot(page, 'browser-palette.png');
  await page.keyboard.press('Enter');
  const form = page.getByRole('dialog', { name });
  await expect(form.getByRole('textbox', { name: 'language' })).toBeFocused();
  await page.keyboard.type('French');
  await page.keyboard.press('Enter');
  await expect(form).toBeHidden();
  await expect(box).toHaveValue(`Translate into French: remember the word ${id}`);
  await expect(box).toBeFocused();
  await page.keyboard.press('Enter');
  const turn = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(turn.getByText(`Translate into French: remember the word ${id}`, { exact: true })).toBeVisible();
  await finished(turn);
});

test('a ChatGPT export imports with its branches as versions, and the report says what it took', async ({ page }) => {
  // A real ChatGPT export with a branch (mitkury/chatgpt-export-parser,
  // MIT; see backend/export/foreign/testdata/SOURCES.md): the second user
  // message was edited, so the conversation holds two versions of it.
  const convs = JSON.parse(
    readFileSync(join(process.cwd(), '../backend/export/foreign/testdata/chatgpt_export_parser_branch.json'), 'utf8'),
  );
  const title = `From ChatGPT ${uid()}`;
  convs[0].title = title;
  await page
    .locator('input[type="file"][accept*="json"]')
    .setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(convs)) });
  const report = page.getByRole('dialog', { name: 'Imported from ChatGPT' });
  await expect(report.getByTestId('import-summary')).toContainText('1 conversation');
  await shot(page, 'browser-import-report.png');
  await report.getByRole('button', { name: title }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(title);

  // The active branch is the one the export was on (its current_node).
  const second = page.getByRole('article').nth(1);
  await expect(second).toContainText('How do I write a function in JavaScript?');
  const versions = second.getByRole('group', { name: 'Versions of this message' });
  await expect(versions).toContainText('1 / 2');
  await versions.getByRole('button', { name: 'Next version' }).click();
  await expect(page.getByRole('article').nth(1)).toContainText('Actually, can you help me with Python instead?');
  await expect(page.getByRole('article').nth(1).getByRole('group', { name: 'Versions of this message' })).toContainText('2 / 2');
  // Imported turns have no recorded model calls: Replay says so, disabled.
  const replay = page.getByRole('article').first().getByRole('button', { name: 'Replay' });
  await expect(replay).toBeDisabled();
  await expect(replay).toHaveAttribute('title', /Imported from ChatGPT/);
});
