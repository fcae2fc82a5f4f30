// Figure 7 of `make bench`: the browser UI's frame rate while a turn
// streams. Opens `agentdeck serve` in headless Chromium (Debian's, never a
// downloaded one), records the idle page's frames (the floor), sends a
// message through the composer, and once the first tokens show records
// every requestAnimationFrame for five windows of SECONDS/5 each.
//
// Prints "key value" lines for bench/report: fps and the longest frame
// over the whole stream and per window, the size of the page's text at the
// end of each window, and how fast the answer grew (tokens are "tokN ").
//
//   node stream.mjs URL [SECONDS]
import { chromium } from 'playwright-core';

const [url, secondsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 25);
if (!url) {
  console.error('usage: node stream.mjs URL [SECONDS]');
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url, { waitUntil: 'load' });
  const box = page.locator('[data-region="composer"] textarea');
  await box.waitFor({ state: 'visible', timeout: 20_000 });
  await page.waitForFunction(() => !document.querySelector('[data-region="composer"] textarea')?.disabled, null, { timeout: 20_000 });
  const idle = await page.evaluate(frames, 3000);
  await box.fill('Stream the benchmark answer.');
  await box.press('Enter');
  await page.waitForFunction(() => document.body.innerText.includes('tok20 '), null, { timeout: 30_000 });
  const tokens0 = await page.evaluate(countTokens);
  const windows = [];
  for (let i = 0; i < 5; i++) windows.push(await page.evaluate(frames, (seconds * 1000) / 5));
  const tokens1 = await page.evaluate(countTokens);
  const all = windows.reduce((a, w) => ({ frames: a.frames + w.frames, seconds: a.seconds + w.seconds }), { frames: 0, seconds: 0 });
  const out = {
    idle_fps: idle.fps,
    idle_longest_frame_ms: idle.longest,
    fps: all.frames / all.seconds,
    longest_frame_ms: Math.max(...windows.map((w) => w.longest)),
    seconds: all.seconds,
    tokens_per_s: (tokens1 - tokens0) / all.seconds,
  };
  windows.forEach((w, i) => {
    out[`window${i + 1}_fps`] = w.fps;
    out[`window${i + 1}_longest_frame_ms`] = w.longest;
    out[`window${i + 1}_text_kb`] = w.textKB;
  });
  for (const [k, v] of Object.entries(out)) console.log(`ui_${k} ${Math.round(v * 100) / 100}`);
} finally {
  await browser.close();
}

// frames records requestAnimationFrame for ms (runs in the page).
async function frames(ms) {
  const t = [];
  await new Promise((done) => {
    const tick = (now) => {
      t.push(now);
      if (now - t[0] < ms) requestAnimationFrame(tick);
      else done();
    };
    requestAnimationFrame(tick);
  });
  let longest = 0;
  for (let i = 1; i < t.length; i++) longest = Math.max(longest, t[i] - t[i - 1]);
  const s = (t[t.length - 1] - t[0]) / 1000;
  return { fps: (t.length - 1) / s, frames: t.length - 1, seconds: s, longest, textKB: document.body.innerText.length / 1024 };
}

// countTokens counts the answer's words so far (runs in the page).
function countTokens() {
  return (document.body.innerText.match(/\btok\d+ /g) ?? []).length;
}
