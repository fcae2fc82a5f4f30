// Images for vision models, on the real backend: images pasted into the
// composer (made in the page with a canvas, handed over as a clipboard
// paste), one removed, the rest scaled to fit 2048 px by the browser's own
// decoder and canvas, sent inline with the message (no upload), shown in
// the turn, read back from the store after a reload, and opened full
// size. fakellm answers "remember" with a short plain answer.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { composer, E2E_URL, expect, finished, newSession, openApp, OUT, pasteImages, shot, test, uid } from './fixtures';

/** The size an <img> decoded to: what its bytes are, not how it is laid out. */
async function natural(img: ReturnType<Page['locator']>): Promise<[number, number]> {
  await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0)).toBe(true);
  return img.evaluate((el: HTMLImageElement) => [el.naturalWidth, el.naturalHeight] as [number, number]);
}

test('pasted images are scaled, sent with the message, shown in the turn, kept across a reload, and open full size', async ({
  page,
  requests,
}) => {
  await newSession(page);
  const id = uid();
  await pasteImages(page, [
    { name: 'ridge.png', type: 'image/png', width: 3000, height: 1200 },
    { name: 'dusk.jpg', type: 'image/jpeg', width: 4000, height: 3000 },
    { name: 'small.png', type: 'image/png', width: 320, height: 200 },
  ]);

  const tray = page.getByRole('list', { name: 'Images to send' });
  // How long the page took to decode, scale, encode and read the three and
  // show their thumbnails (checked each frame): a measure written down, not a bound.
  const shown = await page.waitForFunction(
    () => {
      const imgs = [...document.querySelectorAll<HTMLImageElement>('[aria-label="Images to send"] img')];
      return (
        imgs.length === 3 &&
        imgs.every((i) => i.complete && i.naturalWidth > 0) &&
        Math.round(performance.now() - (window as unknown as { pastedAt: number }).pastedAt)
      );
    },
    undefined,
    { timeout: 45_000 },
  );
  writeFileSync(
    join(OUT, 'images-timing.json'),
    JSON.stringify(
      { images: ['3000×1200 PNG', '4000×3000 JPEG', '320×200 PNG'], paste_to_thumbnails_ms: await shown.jsonValue() },
      null,
      2,
    ),
  );
  await expect(tray.getByRole('img')).toHaveCount(3);
  const item = (name: string) => tray.getByRole('listitem').filter({ has: page.getByRole('img', { name, exact: true }) });
  // Scaled by the browser to fit 2048 px, each in its own type; the small one as it was.
  await expect(item('ridge.png')).toHaveAttribute('title', /^ridge\.png: 2048 × 819 px · .* \(scaled down from 3000 × 1200\)$/);
  await expect(item('dusk.jpg')).toHaveAttribute('title', /^dusk\.jpg: 2048 × 1536 px · .* \(scaled down from 4000 × 3000\)$/);
  await expect(item('small.png')).toHaveAttribute('title', /^small\.png: 320 × 200 px · /);
  expect(await natural(item('ridge.png').getByRole('img'))).toEqual([2048, 819]);

  await page.getByRole('button', { name: 'Remove small.png' }).click();
  await expect(tray.getByRole('img')).toHaveCount(2);

  const message = `remember this view ${id}`;
  await composer(page).fill(message);
  await shot(page, 'browser-images-composer.png');
  await composer(page).press('Enter');
  const turn = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(turn.getByText(message, { exact: true })).toBeVisible();
  await expect(tray).toHaveCount(0);
  const thumb = (name: string) => turn.getByRole('button', { name: `Open ${name}`, exact: true });
  await expect(thumb('ridge.png')).toBeVisible();
  await expect(thumb('dusk.jpg')).toBeVisible();
  await expect(turn.getByRole('button', { name: 'Open small.png' })).toHaveCount(0);
  await finished(turn);
  await expect(turn.locator('.md').last()).toContainText('quixotically');
  // Inline with the message over the token-checked API, never uploaded as a table.
  expect(requests.filter((u) => u.endsWith('/api/call/SendMessage'))).toHaveLength(1);
  expect(requests.filter((u) => u.endsWith('/api/call/UploadAttachment'))).toHaveLength(0);
  await shot(page, 'browser-images.png');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'browser-images-dark.png');
  await page.emulateMedia({ colorScheme: 'light' });

  // A reload reads the turn back: its images come from the store by id.
  await openApp(page, E2E_URL);
  await page.getByRole('navigation', { name: 'Session list' }).getByText(message).click();
  const again = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(again.getByText(message, { exact: true })).toBeVisible();
  const stored = again.getByRole('button', { name: 'Open ridge.png', exact: true });
  expect(await natural(stored.locator('img'))).toEqual([2048, 819]);
  expect(await natural(again.getByRole('button', { name: 'Open dusk.jpg', exact: true }).locator('img'))).toEqual([2048, 1536]);
  expect(requests.filter((u) => u.endsWith('/api/call/GetImage'))).toHaveLength(2);

  await stored.click();
  const full = page.getByRole('dialog', { name: 'ridge.png' });
  await expect(full).toBeVisible();
  await expect(full.locator('figcaption')).toHaveText(/^2048 × 819 px · [\d.]+ (KB|MB) · PNG$/);
  expect(await natural(full.getByRole('img', { name: 'ridge.png' }))).toEqual([2048, 819]);
  await shot(page, 'browser-image-full.png');
  await page.keyboard.press('Escape');
  await expect(full).toHaveCount(0);
  await expect(stored).toBeFocused();
});

test('an image-only message sends; a file that is no image says why', async ({ page }) => {
  await newSession(page);
  await pasteImages(page, [{ name: `only-${uid()}.png`, type: 'image/png', width: 640, height: 360 }]);
  await expect(page.getByRole('list', { name: 'Images to send' }).getByRole('img')).toHaveCount(1);
  await page.getByRole('button', { name: 'Send' }).click();
  const turn = page.getByRole('article', { name: 'Turn 1', exact: true });
  await expect(turn.getByRole('button', { name: /^Open only-/ })).toBeVisible();
  await expect(turn.locator('.bubble')).toHaveCount(0);
  await finished(turn);

  await composer(page).evaluate((el) => {
    const dt = new DataTransfer();
    dt.items.add(new File(['not really a picture'], 'fake.png', { type: 'image/png' }));
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }));
  });
  await expect(page.getByRole('form', { name: 'Message' }).getByRole('alert')).toContainText('fake.png could not be read as an image.');
});
