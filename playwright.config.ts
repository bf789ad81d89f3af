import { defineConfig } from '@playwright/test';

// Debian's Chromium (apt-get install chromium); Playwright's own download does not work
// on these machines. Elsewhere: `npx playwright install chromium` and CHROME_PATH unset.
const executablePath = process.env.CHROME_PATH ?? '/usr/bin/chromium';

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
