// A session made by `agentdeck run --base-url URL --model M` names a model
// but no provider (the URL was a flag and is saved nowhere). The window
// continues it on the default provider ("fake", the same fakellm here),
// which the session names from then on.
import { execFileSync } from 'node:child_process';
import { answer, composer, expect, finished, openApp, shot, test, uid } from './fixtures';
import { modelList } from './models';

const BIN = process.env.E2E_BIN!;
const DB = process.env.E2E_DB!;
const MODEL_URL = process.env.E2E_MODEL_URL!;

test('a session started by agentdeck run --base-url continues in the window', async ({ page }) => {
  const ask = `whoami from the terminal ${uid()}`;
  execFileSync(BIN, ['run', '--db', DB, '--base-url', MODEL_URL, '--model', 'cli-model', ask], { stdio: ['ignore', 'pipe', 'pipe'] });
  await openApp(page);
  await page.getByRole('navigation', { name: 'Session list' }).getByRole('button', { name: ask, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(ask);
  const first = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(answer(first).last()).toHaveText('Answered by fakellm as cli-model.');

  // The picker offers the saved providers, starting at the default one with the session's model.
  const picker = page.getByRole('form', { name: 'Message' }).getByRole('combobox', { name: 'Model' });
  await expect(picker).toHaveValue('cli-model');
  await expect(picker).toHaveAttribute('data-provider', 'fake');
  await picker.click();
  const list = await modelList(picker);
  for (const name of ['fake', 'dead', 'second', 'small', 'capped'])
    await expect(list.getByRole('group', { name, exact: true })).toHaveCount(1);
  await picker.press('Escape');

  await composer(page).fill('whoami, again');
  await composer(page).press('Enter');
  const second = page.getByRole('article', { name: 'Turn 2', exact: true });
  await finished(second);
  await expect(answer(second).last()).toHaveText('Answered by fakellm as cli-model.');
  await expect(page.getByText('fake · cli-model')).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await shot(page, 'browser-cli-session.png');
});
