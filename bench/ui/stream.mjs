// Figure 7 of `make bench`: the browser UI while turns stream. Opens
// `agentdeck serve` in headless Chromium (Debian's, never a downloaded
// one), records the idle page's frames (the floor), sends a message
// through the composer, and once the first tokens show records every
// requestAnimationFrame for five windows of SECONDS/5 each. The scripted
// server streams a markdown answer at 2,000 tokens/s (bench/peer,
// uistream_test.go: a heading, a paragraph, a list, a code block and a
// paragraph every 100 tokens, each token "tokN").
//
// The cost of an update (figure 7b's ratio): for each frame in which the
// answer's DOM changed (a MutationObserver on it says so), the time from
// the start of the frame's first animation callback (the turn store
// applies the frame's events in one: lib/stores/turns.svelte.ts) to the
// end of the frame's rendering (a message posted from that callback,
// which the page handles after style, layout and paint). That is the
// main thread's whole work for the update, from reading its events to
// painting it, and none of the wait for the next frame. It is compared
// with the answer's length when it happened (the last token's number in
// the answer's last block): the median over the frames at 100 to 1,000
// tokens against the median at 49,000 to 51,000.
//
// With COLUMNS (4), it then stops the turn, opens a new session and sends
// a message side by side to that many targets (the providers bench,
// bench2, …, all on the same scripted server), and records the frames
// while the columns stream (2,000 tokens/s each).
//
// Prints "key value" lines for bench/report: fps and the longest frame
// over the whole stream and per window, the size of the page's text at the
// end of each window, how fast the answer grew, the update costs, and the
// side-by-side frames.
//
//   node stream.mjs URL [SECONDS] [COLUMNS]
import { chromium } from 'playwright-core';

const [url, secondsArg, columnsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 25);
const columns = Number(columnsArg ?? 0);
if (!url) {
  console.error('usage: node stream.mjs URL [SECONDS] [COLUMNS]');
  process.exit(2);
}

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const out = {};
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.addInitScript(instrument);
  await page.goto(url, { waitUntil: 'load' });
  const box = page.locator('[data-region="composer"] textarea');
  await ready(page, box);
  const idle = await page.evaluate(frames, 3000);
  await box.fill('Stream the benchmark answer.');
  await box.press('Enter');
  await page.waitForFunction(shown, 20, { timeout: 30_000, polling: 50 });
  const tokens0 = await page.evaluate(lastToken);
  const windows = [];
  for (let i = 0; i < 5; i++) windows.push(await page.evaluate(frames, (seconds * 1000) / 5));
  const tokens1 = await page.evaluate(lastToken);
  const all = windows.reduce((a, w) => ({ frames: a.frames + w.frames, seconds: a.seconds + w.seconds }), { frames: 0, seconds: 0 });
  Object.assign(out, {
    idle_fps: idle.fps,
    idle_longest_frame_ms: idle.longest,
    fps: all.frames / all.seconds,
    longest_frame_ms: Math.max(...windows.map((w) => w.longest)),
    seconds: all.seconds,
    tokens_per_s: (tokens1 - tokens0) / all.seconds,
  });
  windows.forEach((w, i) => {
    out[`window${i + 1}_fps`] = w.fps;
    out[`window${i + 1}_longest_frame_ms`] = w.longest;
    out[`window${i + 1}_text_kb`] = w.textKB;
  });

  // The update costs: wait for the answer to pass 51,000 tokens.
  await page.waitForFunction(() => (window.__bench.costs.at(-1)?.[0] ?? 0) >= 51_000, null, { timeout: 40_000, polling: 500 });
  const costs = await page.evaluate(() => window.__bench.costs);
  const near = (lo, hi) => costs.filter(([n]) => n >= lo && n <= hi).map(([, ms]) => ms);
  const small = near(100, 1000);
  const large = near(49_000, 51_000);
  out.update_ms_500 = median(small);
  out.update_ms_50k = median(large);
  out.update_frames_500 = small.length;
  out.update_frames_50k = large.length;
  out.update_p90_ms_500 = quantile(small, 0.9);
  out.update_p90_ms_50k = quantile(large, 0.9);
  await page.evaluate(frames, 10); // (keeps the page's frames going while the stop is pressed)
  await stop(page);

  if (columns > 1) {
    const cols = await sideBySide(page, box, columns);
    Object.assign(out, cols);
  }
} finally {
  // What was measured is printed even if a later step failed (the error
  // then goes to stderr and the exit status says so).
  for (const [k, v] of Object.entries(out)) console.log(`ui_${k} ${Math.round(v * 100) / 100}`);
  await browser.close();
}

// ---------------------------------------------------------------- steps --

async function ready(page, box) {
  await box.waitFor({ state: 'visible', timeout: 20_000 });
  await page.waitForFunction(() => !document.querySelector('[data-region="composer"] textarea')?.disabled, null, { timeout: 20_000 });
}

// stop presses Stop (Stop all) and waits until nothing runs.
async function stop(page) {
  const button = page.getByRole('form', { name: 'Message' }).getByRole('button', { name: /^Stop( all)?$/ });
  await button.click();
  await button.waitFor({ state: 'detached', timeout: 20_000 });
}

// sideBySide opens a new session, picks n targets (the session's model
// and the providers bench2…benchN), sends, and records the frames for 10 s
// once every column shows its 20th token.
async function sideBySide(page, box, n) {
  await page.getByRole('button', { name: 'New session', exact: true }).first().click();
  await ready(page, box);
  const form = page.getByRole('form', { name: 'Message' });
  await form.getByRole('button', { name: /^Side by side/ }).click();
  for (let i = 2; i <= n; i++) {
    const picker = page.getByRole('combobox', { name: 'Model to add', exact: true });
    await picker.fill('m');
    const list = page.locator(`[id="${await picker.getAttribute('aria-controls')}"]`);
    await list.getByRole('group', { name: `bench${i}`, exact: true }).locator('[role="option"]').first().click();
    await page.getByRole('button', { name: 'Add target' }).click();
  }
  await page.getByRole('list', { name: 'Targets' }).getByRole('listitem').nth(n - 1).waitFor({ timeout: 10_000 });
  await box.fill('Stream the benchmark answer side by side.');
  await box.press('Enter');
  await page.waitForFunction(
    (n) => {
      const mds = [...document.querySelectorAll('[aria-label="Side by side"] .md')];
      return mds.length >= n && mds.every((md) => /tok2\d /.test(md.textContent ?? '') || /tok\d{3,} /.test(md.textContent ?? ''));
    },
    n,
    { timeout: 30_000, polling: 100 },
  );
  const windows = [await page.evaluate(frames, 5000), await page.evaluate(frames, 5000)];
  const shown = await page.evaluate(() => document.querySelectorAll('[aria-label="Side by side"] .md').length);
  await stop(page);
  const all = windows.reduce((a, w) => ({ frames: a.frames + w.frames, seconds: a.seconds + w.seconds }), { frames: 0, seconds: 0 });
  return {
    cols_columns: shown,
    cols_fps: all.frames / all.seconds,
    cols_longest_frame_ms: Math.max(...windows.map((w) => w.longest)),
  };
}

function median(xs) {
  return quantile(xs, 0.5);
}

function quantile(xs, q) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

// ------------------------------------------------------ in the page --

// instrument runs before the page's scripts: it times each frame in which
// the watched answer changed (see the top of this file).
function instrument() {
  const raf = window.requestAnimationFrame.bind(window);
  const channel = new MessageChannel();
  const m = { start: 0, changed: false, costs: [], target: null };
  window.__bench = m;
  const last = () => {
    const found = (m.target?.lastElementChild?.textContent ?? '').match(/tok(\d+)/g);
    return found ? Number(found[found.length - 1].slice(3)) : 0;
  };
  m.last = last;
  channel.port1.onmessage = () => {
    if (m.changed) m.costs.push([last(), performance.now() - m.start]);
    m.changed = false;
    m.start = 0;
  };
  window.requestAnimationFrame = (cb) =>
    raf((ts) => {
      if (!m.start) {
        m.start = performance.now();
        channel.port2.postMessage(0);
      }
      cb(ts);
    });
  m.watch = (el) => {
    m.target = el;
    new MutationObserver(() => (m.changed = true)).observe(el, { childList: true, subtree: true, characterData: true });
  };
  // The answer is watched from its first tokens: the first rendered
  // markdown that shows one.
  const find = new MutationObserver(() => {
    const md = [...document.querySelectorAll('.md')].find((el) => /tok\d/.test(el.textContent ?? ''));
    if (!md) return;
    find.disconnect();
    m.watch(md);
    m.changed = true;
  });
  addEventListener('DOMContentLoaded', () => find.observe(document.body, { childList: true, subtree: true, characterData: true }));
}

// shown reports whether the watched answer shows token `tok` (runs in the page).
function shown(tok) {
  return window.__bench.last() >= tok;
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
  return { fps: (t.length - 1) / s, frames: t.length - 1, seconds: s, longest, textKB: (window.__bench.target?.textContent?.length ?? 0) / 1024 };
}

// lastToken is the number of the answer's last token so far (runs in the page).
function lastToken() {
  return window.__bench.last();
}
