// A critique-revise turn reads as its answer: fakellm's writer drafts, the
// critic fails the draft, the reviser revises, the critic passes it. The
// answer is the revised draft, marked; the drafts and the critics' raw
// replies are folded sections; Copy gives the answer alone.
import { expect, finished, newSession, send, shot, test } from './fixtures';

const firstDraft = 'Draft: Agentdeck runs agents on your own machine and shows every step.';
const revised =
  'Draft (revised): Agentdeck runs LLM agents and workflows locally, streams every step live, and lets you stop, review and replay any turn.';

test('a critique-revise turn marks the final draft as its answer, and Copy copies only that', async ({ page }) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await newSession(page);
  await page.getByRole('combobox', { name: 'Workflow' }).selectOption('critique-revise');
  const turn = await send(page, 'Please critique and revise a one-line pitch for Agentdeck');
  await finished(turn);

  const answer = turn.getByRole('region', { name: 'Answer' });
  await expect(answer).toContainText(revised);
  await expect(answer).toContainText('Draft 2');
  await expect(answer).not.toContainText(firstDraft);
  await expect(answer).not.toContainText('"passed"');

  // The work that led to it: folded, labelled, with the critic's verdicts.
  const sections = turn.locator('details.section');
  await expect(sections.locator('summary .label')).toHaveText(['Draft 1', 'Critique 1', 'Critique 2']);
  await expect(sections.nth(1).locator('summary')).toContainText('needs work, 40%');
  await expect(sections.nth(2).locator('summary')).toContainText('passed, 90%');
  for (const i of [0, 1, 2]) await expect(sections.nth(i)).not.toHaveAttribute('open');
  await expect(turn.getByText(firstDraft)).toBeHidden();

  // Opened, a section shows its raw text and copies it alone.
  await sections.nth(0).locator('summary').click();
  await expect(turn.getByText(firstDraft)).toBeVisible();
  const copyDraft = sections.nth(0).getByRole('button', { name: 'Copy Draft 1' });
  await copyDraft.click();
  await expect(copyDraft).toHaveText(/Copied/);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(firstDraft);
  await shot(page, 'browser-critique-answer.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'browser-critique-answer-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  const copy = turn.getByRole('button', { name: 'Copy the answer' });
  await copy.click();
  await expect(copy).toHaveText(/Copied/);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(revised);
});
