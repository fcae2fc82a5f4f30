// The critique-revise workflow: fakellm's critic fails the first draft and
// passes the revision, so the turn runs write, critique 1, revise 1,
// critique 2.
import { expect, finished, newSession, send, shot, test } from './fixtures';

test('the diagnostics timeline shows every critique-revise stage and its outcome', async ({ page }) => {
  await newSession(page);
  await page.getByRole('combobox', { name: 'Workflow' }).selectOption('critique-revise');
  const turn = await send(page, 'Please critique and revise a one-line pitch for Agentdeck');
  await finished(turn);

  // In the conversation: the stages in order and the critic's two verdicts.
  await expect(turn.getByText('critique-revise', { exact: true })).toBeVisible();
  const verdicts = turn.locator('.note.critique');
  await expect(verdicts).toHaveCount(2);
  await expect(verdicts.nth(0)).toContainText('needs work · 40%');
  await expect(verdicts.nth(1)).toContainText('passed · 90%');
  await expect(turn.getByText('Draft (revised):')).toBeVisible();

  await turn.getByRole('button', { name: 'Diagnostics' }).click();
  const panel = page.getByRole('complementary', { name: 'Diagnostics' });
  await expect(panel).toBeVisible();
  await expect(panel.getByRole('region', { name: 'Totals' })).toContainText('succeeded');
  const names = ['write', 'critique 1', 'revise 1', 'critique 2'];
  const cards = panel.getByRole('region', { name: /^Stage / });
  await expect(cards).toHaveCount(names.length);
  for (const [i, name] of names.entries()) {
    const card = cards.nth(i);
    await expect(card).toHaveAccessibleName(`Stage ${name}`);
    await expect(card.getByRole('strong')).toHaveText(`${i + 1}. ${name}`);
    await expect(card.getByText('succeeded', { exact: true })).toBeVisible();
    await expect(card).toContainText(name.startsWith('critique') ? 'critic' : 'writer');
  }
  // The waterfall draws a labelled bar for each stage, on one time axis.
  const timeline = panel.getByRole('img', { name: /Timeline of the turn/ });
  const rows = timeline.locator('g.stage');
  await expect(rows).toHaveCount(names.length);
  for (const [i, name] of names.entries()) {
    await expect(rows.nth(i).locator('text.label')).toHaveText(new RegExp(`^${name} · (writer|critic)$`));
    await expect(rows.nth(i).locator('rect.bar')).toHaveClass(/\bok\b/);
    await expect(rows.nth(i).locator('rect.bar title')).toHaveText(new RegExp(`^${name} · .* · succeeded · `));
  }
  await shot(page, 'browser-diagnostics.png');
});
