// The About box of the release binary: opened from the version in the
// sidebar's footer, it names the build the binary says it is (`agentdeck
// version --json`, the version scripts/version.sh made), the data folder
// and database scripts/e2e.sh made, with a size that is not zero and the
// log beside it; it copies all of that for a bug report, offers the
// project's links as new tabs with no opener, passes axe in light and
// dark, and closes with Esc. A long version neither pushes the footer's
// buttons out nor overflows the dialog, even in a narrow window.
// Screenshots browser-about-light.png, browser-about-dark.png and
// browser-about-narrow.png.
import { execFileSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { audit } from './axe';
import { E2E_URL, expect, openApp, shot, test } from './fixtures';

const BIN = process.env.E2E_BIN!;
const DB = process.env.E2E_DB!;

/** What scripts/version.sh makes: a tag, a tag and the commits after it, or no tag at all; .dirty for uncommitted changes. */
const VERSION = /^(\d+\.\d+\.\d+(\+git\d{8}\.[0-9a-f]{7})?|0\.0\.0~git\d{8}\.[0-9a-f]{7})(\.dirty)?$/;

async function openAbout(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: /^About Agentdeck v/ }).click();
  const dialog = page.getByRole('dialog', { name: 'About Agentdeck' });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId('about-commit')).not.toBeEmpty();
  return dialog;
}

test('About names the running build, the data folder and the database with its size', async ({ page }) => {
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.emulateMedia({ colorScheme: 'light' });
  const binary = JSON.parse(execFileSync(BIN, ['version', '--json'], { encoding: 'utf8' })) as {
    version: string;
    commit: string;
    go_version: string;
  };
  expect(binary.version).toMatch(VERSION);

  const footer = page.getByTestId('version');
  await expect(footer).toHaveText(`v${binary.version}`);
  await expect(footer).toHaveAttribute('title', `Agentdeck v${binary.version}`);
  const dialog = await openAbout(page);
  await expect(dialog.getByTestId('about-version')).toHaveText(binary.version);
  await expect(dialog.getByTestId('about-commit')).toHaveText(binary.commit);
  await expect(dialog.getByTestId('about-platform')).toHaveText(
    `${binary.go_version} for linux/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  );
  await expect(dialog.getByTestId('about-data-dir')).toHaveText(dirname(DB));
  await expect(dialog.getByTestId('about-db-path')).toHaveText(DB);
  await expect(dialog.getByTestId('about-log')).toHaveText(join(dirname(DB), 'agentdeck.log'));
  // The providers e2e.sh added are in it: never empty.
  const size = dialog.getByTestId('about-db-size');
  await expect(size).toHaveText(/^\d+(\.\d)? (KB|MB|GB)$/);
  const bytes = Number((await size.getAttribute('title'))?.match(/^([\d,]+) bytes/)?.[1]?.replaceAll(',', ''));
  expect(bytes).toBeGreaterThan(0);
  await expect(dialog.getByTestId('about-db-error')).toHaveCount(0);

  // The links leave the app as new tabs with no opener (not followed here: no network).
  const links = dialog.getByRole('link');
  await expect(links).toHaveText(['Project home', 'Report a problem']);
  for (const [name, href] of [
    ['Project home', 'https://github.com/agentdeck/agentdeck'],
    ['Report a problem', 'https://github.com/agentdeck/agentdeck/issues'],
  ]) {
    const link = dialog.getByRole('link', { name });
    await expect(link).toHaveAttribute('href', href);
    await expect(link).toHaveAttribute('target', '_blank');
    await expect(link).toHaveAttribute('rel', 'noopener noreferrer');
  }

  // Copy details: the same facts as text, for a bug report.
  await dialog.getByRole('button', { name: 'Copy details' }).click();
  await expect(dialog.getByRole('button', { name: 'Copied' })).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied.split('\n').slice(0, 6)).toEqual([
    `Agentdeck ${binary.version}`,
    `Commit: ${binary.commit}`,
    expect.stringMatching(new RegExp(`^Built with: ${binary.go_version.replaceAll('.', '\\.')} for linux/`)),
    'Running in: a browser (agentdeck serve)',
    `Data folder: ${dirname(DB)}`,
    `Database: ${DB}, ${await size.textContent()} (${bytes.toLocaleString('en-US')} bytes)`,
  ]);
  await expect(dialog.getByRole('button', { name: 'Copy details' })).toBeVisible();

  await page.mouse.move(0, 0);
  await shot(page, 'browser-about-light.png');
  await audit(page, 'about', 'light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await shot(page, 'browser-about-dark.png');
  await audit(page, 'about', 'dark');
  await page.emulateMedia({ colorScheme: 'light' });

  // Esc closes it and gives focus back to the version it was opened from.
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(footer).toBeFocused();
});

test('About opens from Settings, over it, and closing it goes back there', async ({ page }) => {
  await page.getByRole('button', { name: 'Settings', exact: true }).click();
  const settings = page.getByRole('dialog', { name: 'Settings' });
  const opener = settings.getByRole('button', { name: 'About Agentdeck' });
  await opener.click();
  const about = page.getByRole('dialog', { name: 'About Agentdeck' });
  await expect(about.getByTestId('about-version')).toHaveText(VERSION);
  await page.keyboard.press('Escape');
  await expect(about).toHaveCount(0);
  await expect(settings).toBeVisible();
  await expect(opener).toBeFocused();
});

// The longest form scripts/version.sh makes, a tag's with the commits after
// it and uncommitted changes, served in place of the binary's own.
test('a long version is cut short in the footer, whole in its title, and wraps in the dialog', async ({ page }) => {
  const long = '10.20.30+git20261203.f3138d4.dirty';
  for (const method of ['Status', 'About']) {
    await page.route(`**/api/call/${method}`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), version: long } });
    });
  }
  await openApp(page, E2E_URL);
  const footer = page.getByTestId('version');
  await expect(footer).toHaveText(`v${long}`);
  await expect(footer).toHaveAttribute('title', `Agentdeck v${long}`);
  // The text is cut (an ellipsis), and every button of the footer is whole inside the sidebar.
  expect(await footer.evaluate((el) => [el.scrollWidth > el.clientWidth, getComputedStyle(el).textOverflow])).toEqual([true, 'ellipsis']);
  const sidebar = (await page.locator('[data-region="sidebar"]').boundingBox())!;
  for (const name of ['Import a session', 'Usage and cost', 'Settings']) {
    const box = (await page.getByRole('button', { name, exact: true }).boundingBox())!;
    expect(box.width, name).toBeGreaterThanOrEqual(28);
    expect(box.x + box.width, `${name} is inside the sidebar`).toBeLessThanOrEqual(sidebar.x + sidebar.width);
  }

  const dialog = await openAbout(page);
  const version = dialog.getByTestId('about-version');
  await expect(version).toHaveText(long);
  await expect.poll(() => spills(dialog)).toEqual([]);
  // In a narrow window the version and the paths wrap inside the dialog.
  await page.setViewportSize({ width: 360, height: 740 });
  const lines = () =>
    version.evaluate((el) => {
      const r = document.createRange();
      r.selectNodeContents(el);
      return r.getClientRects().length;
    });
  await expect.poll(lines).toBeGreaterThan(1);
  await expect.poll(() => spills(dialog)).toEqual([]);
  await shot(page, 'browser-about-narrow.png');
});

/** The elements of the dialog that reach past its right edge, or scroll sideways. */
function spills(dialog: Locator): Promise<string[]> {
  return dialog.evaluate((d) => {
    const right = d.getBoundingClientRect().right;
    return [...d.querySelectorAll<HTMLElement>('*')]
      .filter(
        (el) =>
          el.getBoundingClientRect().right > right + 0.5 ||
          (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible'),
      )
      .map((el) => `${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : ''}`);
  });
}
