// Browser end-to-end tests: the release binary in browser mode
// (`agentdeck serve`) against the scripted model (fakellm), driven in
// Debian's Chromium. Run them with `bash scripts/e2e.sh` (or `make e2e`),
// which starts both servers and sets E2E_URL; see e2e/README.md.
import { defineConfig, devices } from '@playwright/test';

const out = process.env.E2E_OUT || '../build/e2e';

export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/global-setup.ts',
  outputDir: `${out}/results`,
  // A bound for a run that hangs, not a measure: an idle 2-core machine
  // runs the suite in a few minutes (the memory test opens 200 sessions),
  // a loaded one took ten.
  globalTimeout: 2_700_000,
  // Generous bounds for loaded 2-core machines: each test waits for what
  // it needs; these only end a test that hangs.
  timeout: 120_000,
  expect: { timeout: 45_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  // list for the log; the JSON report keeps each test's duration, for
  // finding the slow ones (e2e/README.md, "Time").
  reporter: [['list'], ['json', { outputFile: `${out}/results.json` }]],
  use: {
    ...devices['Desktop Chrome'],
    viewport: { width: 1280, height: 800 },
    // Never a browser Playwright downloads: Debian's, installed by scripts/setup.sh.
    launchOptions: {
      executablePath: process.env.E2E_CHROMIUM || '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    actionTimeout: 10_000,
  },
});
