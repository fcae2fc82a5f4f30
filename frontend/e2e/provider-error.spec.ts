// A provider whose server is down: scripts/e2e.sh adds "dead", pointing at
// a closed port on 127.0.0.1, with the model dead-model.
import { expect, finished, newSession, send, shot, test } from './fixtures';
import { pickModel } from './models';

test('an unreachable provider fails the turn with a clear error card', async ({ page }) => {
  await newSession(page);
  await pickModel(page, 'dead', 'dead-model');
  const turn = await send(page, 'Hello, is anyone there?');
  await finished(turn);
  // Over, the turn's error is a card named by its heading, no longer an
  // alert: only an error that just happened is announced.
  const card = turn.getByRole('group', { name: 'The model could not answer' });
  await expect(card).toBeVisible();
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(card).toContainText('The model could not answer');
  await expect(card).toContainText('Is the server running?');
  await expect(card).toContainText('127.0.0.1');
  // Its advice once, the error's own: no general hint beside it.
  await expect(card.getByText('Is the server running?')).toHaveCount(1);
  await expect(card).not.toContainText('Check that the model server is running');
  await expect(card.getByRole('button', { name: 'Open provider settings' })).toBeVisible();
  await expect(turn.getByText('Failed', { exact: true })).toBeVisible();
  await expect(page.getByText('dead · dead-model')).toBeVisible();
  await shot(page, 'browser-error.png');
});
