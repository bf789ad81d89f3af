import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { scratchInMemory } from './test/scratch-in-memory';

// Debian's Chromium; Playwright's own download does not work on these machines. Headless,
// Playwright runs Chromium's headless shell, the same build without the desktop browser
// around it, wherever it installs its own browsers; Debian packages it as
// chromium-headless-shell, from the same source and version as chromium. The browser tier
// takes less than half the CPU in it (docs/performance.md, "The test suites' time"), so it is used
// when installed, the full browser in its new headless mode otherwise. CHROME_PATH picks
// another (elsewhere: the one `npx playwright install chromium` installed).
const HEADLESS_SHELL = '/usr/bin/chromium-headless-shell';
const executablePath = process.env.CHROME_PATH ?? (existsSync(HEADLESS_SHELL) ? HEADLESS_SHELL : '/usr/bin/chromium');

scratchInMemory();

export default defineConfig({
  testDir: 'test/e2e',
  // The service and its CLIs compiled once per run: each worker starts its own from it.
  globalSetup: './test/server-bundle.ts',
  // Two cores: one worker per core; each worker runs its own service and merchant site.
  workers: 2,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  timeout: 30_000,
  // reports/ rather than test-results/, which Playwright empties at the start of a run.
  reporter: process.env.CI ? [['list'], ['json', { outputFile: 'reports/playwright.json' }]] : 'list',
  use: {
    browserName: 'chromium',
    launchOptions: {
      executablePath,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
    trace: 'off',
  },
});
