// Approvals: write_file changes the workspace, so each call waits for the
// user. fakellm's "write a file named NAME" scenario calls it once.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { answer, expect, finished, newSession, send, shot, test, uid } from './fixtures';

test('a side-effecting tool asks first: Deny writes nothing, Allow once writes', async ({ page }) => {
  const workspace = process.env.E2E_WORKSPACE ?? '';
  expect(workspace, 'E2E_WORKSPACE from the global setup').not.toBe('');
  const id = uid();
  const denied = `denied-${id}.txt`;
  const allowed = `allowed-${id}.txt`;

  await newSession(page);
  const folder = page.getByRole('textbox', { name: 'Workspace folder' });
  await folder.fill(workspace);
  await folder.press('Tab');

  const first = await send(page, `Please write a file named ${denied}`);
  const ask = first.getByRole('region', { name: 'Approval needed for write_file' });
  await expect(ask).toBeVisible();
  await expect(ask).toContainText(denied);
  await expect(ask.getByText('changes things', { exact: true })).toBeVisible();
  for (const name of ['Allow once', 'Always', 'Deny']) await expect(ask.getByRole('button', { name, exact: true })).toBeEnabled();
  await shot(page, 'browser-approval.png');
  await ask.getByRole('button', { name: 'Deny', exact: true }).click();
  await finished(first);
  await expect(ask).toHaveCount(0);
  await expect(answer(first).last()).toContainText(`I did not write ${denied}: you denied it.`);
  expect(existsSync(join(workspace, denied)), `${denied} must not exist`).toBe(false);

  // The same session keeps its workspace for the next turn.
  await expect(folder).toHaveValue(workspace);
  const second = await send(page, `Please write a file named ${allowed}`);
  const ask2 = second.getByRole('region', { name: 'Approval needed for write_file' });
  await ask2.getByRole('button', { name: 'Allow once', exact: true }).click();
  await finished(second);
  await expect(answer(second).last()).toContainText(`Finished writing ${allowed}`);
  expect(readFileSync(join(workspace, allowed), 'utf8')).toBe('Written by the fake model.\n');
  expect(existsSync(join(workspace, denied))).toBe(false);
});
