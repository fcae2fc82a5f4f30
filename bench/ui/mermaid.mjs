// Figure 7c of `make bench`: the first paint of a 200-node Mermaid diagram
// in the browser UI, against its floor measured in the same page: the
// first paint of a plain 200-line code block. Opens `agentdeck serve` in
// headless Chromium (Debian's), and for each round sends "paint code R"
// and then "paint mermaid R" (the scripted server answers each at once,
// bench/peer/uipaint_test.go); a paint is the time from the Enter that
// sends the message (in a new session) to the first frame after the block is on the page
// (the code block with its last line; the diagram drawn: its SVG with its
// last node). Round 0 is cold (mermaid's chunk loads with it) and is
// reported apart; the figure is the median of the ROUNDS warm rounds, each
// with a diagram new to the page (its nodes are named by the round).
//
// Prints "key value" lines for bench/report.
//
//   node mermaid.mjs URL [ROUNDS]
import { chromium } from 'playwright-core';

const [url, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 5);
if (!url) {
  console.error('usage: node mermaid.mjs URL [ROUNDS]');
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
  await page.getByRole('button', { name: 'New session' }).click({ timeout: 20_000 });
  const box = page.locator('[data-region="composer"] textarea');
  await box.waitFor({ state: 'visible', timeout: 20_000 });
  const code = [];
  const diagram = [];
  for (let r = 0; r <= rounds; r++) {
    code.push(await paint(page, box, `paint code ${r}`, 'code', `round ${r} line 199:`));
    diagram.push(await paint(page, box, `paint mermaid ${r}`, 'mermaid', `r${r}n199`));
  }
  const warmCode = code.slice(1);
  const warmDiagram = diagram.slice(1);
  const out = {
    mermaid_paint_ms: median(warmDiagram),
    code_paint_ms: median(warmCode),
    mermaid_cold_paint_ms: diagram[0],
    code_cold_paint_ms: code[0],
    mermaid_rounds: warmDiagram.length,
  };
  for (const [k, v] of Object.entries(out)) console.log(`ui_${k} ${Math.round(v * 100) / 100}`);
} finally {
  await browser.close();
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

// paint sends text and resolves to the ms from its Enter to the first
// frame after what marks the answer is on the page.
async function paint(page, box, text, kind, mark) {
  // Each in a session of its own: the answer is the page's only turn.
  await page.getByRole('button', { name: 'New session' }).click({ timeout: 20_000 });
  await page.waitForFunction(() => !document.querySelector('[data-region="composer"] textarea')?.disabled, null, { timeout: 60_000 });
  await box.fill(text);
  await page.evaluate(
    ({ kind, mark }) => {
      const ta = document.querySelector('[data-region="composer"] textarea');
      const found = () =>
        kind === 'code'
          ? [...document.querySelectorAll('.md .code-block pre code')].some((c) => c.textContent.includes(mark))
          : // A label's words may wrap onto lines of their own: compared without spaces.
            [...document.querySelectorAll('.mermaid-view[data-state="drawn"] svg text')].some((s) => s.textContent.replace(/\s/g, '').includes(mark));
      window.__paint = new Promise((resolve, reject) => {
        setTimeout(() => reject(new Error(`error: "${mark}" was not on the page after 60 s`)), 60_000);
        let t0 = 0;
        ta.addEventListener('keydown', (e) => e.key === 'Enter' && (t0 = performance.now()), { once: true, capture: true });
        const obs = new MutationObserver(() => {
          if (!t0 || !found()) return;
          obs.disconnect();
          requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - t0), 0));
        });
        obs.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      });
    },
    { kind, mark },
  );
  await box.press('Enter');
  return page.evaluate(() => window.__paint);
}
