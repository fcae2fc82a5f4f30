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
  // The whole run must stay well under three minutes on a 2-core machine.
  globalTimeout: 150_000,
  timeout: 45_000,
  expect: { timeout: 15_000 },
  fullyParallel: true,
  workers: 2,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    ...devices['Desktop Chrome'],
    viewport: { width: 1280, height: 800 },
    // Never a browser Playwright downloads: Debian's, installed by scripts/setup.sh.
    launchOptions: {
      executablePath: process.env.E2E_CHROMIUM || '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    actionTimeout: 10_000,
  },
});
