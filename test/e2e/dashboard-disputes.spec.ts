import AxeBuilder from '@axe-core/playwright';
import { expect, startService, test, CARDS } from './fixtures';
import { invite } from './dashboard-data';
import { LAPTOP, payButton } from './screen';

// The disputes page in Chromium: a sale paid with the sandbox bank's disputing card is
// disputed by the service's own job a moment later, and the page lists it as needing a
// response, with its deadline, axe-clean in light and dark at 360 px and 1280 px.

const PASSWORD = 'a long and unusual passphrase';

test('a disputed sale is listed as needing a response, with its deadline, and the page passes axe', async ({ page }) => {
  test.setTimeout(120_000);
  const { service, stop } = await startService({ SANDBOX_DISPUTE_DELAY_MS: '0' });
  try {
    const tx = await service.createTransaction({ currency: 'EUR', order_id: 'disputed-1', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price: 30 } }] });
    await page.goto(tx.payment_url);
    await page.getByLabel(/card number/i).fill(CARDS.disputedFraudulent);
    await page.locator('input[autocomplete="cc-exp"]').fill('12/34');
    await page.locator('input[autocomplete="cc-csc"]').fill('123');
    await page.locator('input[autocomplete="cc-name"]').fill('Ada Lovelace');
    await payButton(page).click();
    await expect(page.getByRole('heading', { name: 'Payment complete' })).toBeVisible();
    const sale = (await service.api('GET', `/sale/?transaction_id=${tx.id}`)).body.results[0];
    await expect.poll(async () => (await service.api('GET', `/dispute/?sale=${sale.id}`)).body.count, { timeout: 15_000 }).toBe(1);

    await page.goto(await invite(service, 'disputes@shop.example'));
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('link', { name: 'Disputes' }).click();
    await expect(page.getByRole('heading', { name: 'Needing your response' })).toBeVisible();
    const row = page.getByTestId('dispute-awaiting').first();
    await expect(row).toContainText('fraudulent');
    await expect(row).toContainText(sale.id);
    await expect(row).toContainText('€30.00');
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      for (const size of [{ width: 360, height: 740 }, LAPTOP]) {
        await page.setViewportSize(size);
        const results = await new AxeBuilder({ page }).analyze();
        expect(results.violations.map((v) => `${colorScheme} ${size.width}px ${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow, `${colorScheme} ${size.width}px`).toBeLessThanOrEqual(0);
      }
    }
  } finally {
    await stop();
  }
});
