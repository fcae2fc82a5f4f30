// Settings → Observability in the release binary: a collector that is not
// there (a closed loopback port) changes nothing in a turn, and the page
// shows the export failing with its error and the spans dropped, pushed
// on the bus while it is open; the page passes axe in light and dark.
// Screenshots browser-observability-light.png and
// browser-observability-dark.png.
import { audit } from './axe';
import { expect, finished, newSession, openApp, send, shot, test } from './fixtures';

test('a dead collector fails the export, never the turn, and Settings says so', async ({ page }) => {
  await page.emulateMedia({ colorScheme: 'light' });
  await openApp(page);
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByRole('tab', { name: 'Observability' }).click();
  const panel = dialog.getByRole('tabpanel');
  await expect(panel.getByTestId('traces-state')).toHaveText('Off.');
  await panel.getByLabel('Send turns to an OpenTelemetry collector').check();
  await panel.getByLabel('Where').selectOption('collector');
  await panel.getByLabel('Endpoint').fill('http://127.0.0.1:1');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  await expect(panel.getByTestId('traces-state')).toContainText('Sending to http://127.0.0.1:1');
  await page.keyboard.press('Escape');

  await newSession(page);
  const turn = await send(page, 'Say hello');
  await finished(turn);
  await expect(turn.locator('.md')).not.toBeEmpty();

  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  await dialog.getByRole('tab', { name: 'Observability' }).click();
  await expect(panel.getByTestId('traces-state')).toContainText('Failing', { timeout: 30_000 });
  await expect(panel.getByTestId('traces-state')).toContainText('spans dropped');
  await panel.getByLabel(/Include message contents/).check();
  await expect(panel.getByText(/will receive everything you and the model write/)).toBeVisible();
  await audit(page, 'observability', 'light');
  await shot(page, 'browser-observability-light.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await audit(page, 'observability', 'dark');
  await shot(page, 'browser-observability-dark.png');
});
