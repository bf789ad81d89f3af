import { expectAccessible, invite, keys, PASSWORD, PHONE_360, signUp } from './dashboard-data';
import { expect, startService, test } from './fixtures';
import { LAPTOP } from './screen';

// The header's "Test mode" switch between a shop's paired sandbox and live environments
// (docs/dashboard.md#test-and-live), by keyboard at 360 and 1280 px, with no script; the
// page stays axe-clean in light and dark with the switch in its header (issue 47).

// On a service of its own: the pair is made by the keys CLI on its data.
test('switch test/live by keyboard from the header', async ({ page }) => {
  test.setTimeout(120_000);
  const { service, stop } = await startService();
  try {
    const sandbox = (await keys(service, ['create', '--name', 'Paired shop'])).environment_id as string;
    const live = (await keys(service, ['create', '--name', 'Paired shop', '--live'])).environment_id as string;
    await keys(service, ['pair', '--environment', sandbox, '--with', live]);
    const email = 'pair-owner@shop.example';
    await signUp(page, service, email, 'owner', sandbox);
    await page.goto(await invite(service, email, 'owner', live));
    await page.getByLabel('Your current password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Confirm and sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

    const testMode = page.getByRole('switch', { name: 'Test mode' });
    const mode = page.getByTestId('environment');
    for (const size of [PHONE_360, LAPTOP]) {
      await page.setViewportSize(size);
      await page.goto(`${service.url}/dashboard/`);
      await expect(mode).toContainText('live');
      await expect(testMode).toHaveAttribute('aria-checked', 'false');
      await testMode.focus();
      await page.keyboard.press('Enter');
      await expect(mode).toContainText('sandbox');
      await expect(testMode).toHaveAttribute('aria-checked', 'true');
      await testMode.focus();
      await page.keyboard.press('Space');
      await expect(mode).toContainText('live');
    }
    await expectAccessible(page);
    await testMode.focus();
    await page.keyboard.press('Enter');
    await expect(mode).toContainText('sandbox');
    await expectAccessible(page);
  } finally {
    await stop();
  }
});
