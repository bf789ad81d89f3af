import { expect, startService, test } from './fixtures';
import { expectAccessible, payAsCustomer, signUp } from './dashboard-data';

// The payments list's daily job in Chromium (issue 47), on a service of its own (its saved
// view and payments stay there): the demo shop's rows hidden until asked for; filters that
// combine, kept in the address; a saved view listed above the table, opened and deleted.
// No script; axe-clean in light and dark at 360 and 1280 px.

test('filter the payments, save the view, open and delete it; demo rows hidden until asked for', async ({ page }) => {
  test.setTimeout(240_000);
  const { service, stop } = await startService();
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  try {
    const order = (order_id: string, currency: string, price: number) =>
      service.createTransaction({ currency, order_id, gateway_selected: true, products: [{ amount: 1, product: { name: 'Lamp', price } }] });
    const lamp = await order('lamp-1', 'EUR', 30);
    await payAsCustomer(lamp.payment_url, '5555 5555 5555 4444');
    const sale = (await service.api('GET', `/sale/?transaction_id=${lamp.id}`)).body.results[0];
    expect((await service.api('POST', `/sale/${sale.id}/refund/`, { amount: 5, reason: 'duplicate' })).status).toBe(200);
    await payAsCustomer((await order('mug-1', 'EUR', 12)).payment_url);
    await order('chair-1', 'USD', 25);
    await payAsCustomer((await order('demo-lamp', 'EUR', 30)).payment_url, '5555 5555 5555 4444');

    await signUp(page, service, 'views-admin@shop.example', 'admin');
    await page.getByRole('link', { name: 'Transactions' }).click();
    const rows = page.getByRole('region', { name: 'Transactions' }).locator('tbody tr');
    await expect(rows).toHaveCount(3);
    await expect(rows.filter({ hasText: 'lamp-1' })).toContainText('Partially refunded');
    await expect(rows.filter({ hasText: 'mug-1' })).toContainText('Paid');
    await expect(rows.filter({ hasText: 'chair-1' })).toContainText('Incomplete');
    await expect(page.getByText('demo-lamp')).toHaveCount(0);
    // On a phone a row's date keeps to one line (the table scrolls sideways in its region).
    await page.setViewportSize({ width: 360, height: 800 });
    const lines = await rows.first().locator('td').last().evaluate((td) => {
      const text = document.createRange();
      text.selectNodeContents(td);
      return new Set([...text.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    expect(lines).toBe(1);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel('Show demo and test-tool payments').check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(rows).toHaveCount(4);
    await expect(rows.filter({ hasText: 'demo-lamp' })).toContainText('mastercard •••• 4444');

    // Filters together: status in words, amount from, card brand and last four; the demo row is hidden again.
    await page.getByLabel('Show demo and test-tool payments').uncheck();
    await page.getByLabel('Status').selectOption({ label: 'Partially refunded' });
    await page.getByLabel('Amount from').fill('20');
    await page.getByLabel("Card's last four").fill('4444');
    await page.getByLabel('Card brand').selectOption({ label: 'Visa' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByText('No payment matches your search and filters.')).toBeVisible();
    await page.getByLabel('Card brand').selectOption({ label: 'Mastercard' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('lamp-1');
    expect(new URL(page.url()).search).toContain('status=partially_refunded');
    expect(new URL(page.url()).search).toContain('min=20');
    expect(new URL(page.url()).search).toContain('card=4444');
    expect(new URL(page.url()).search).toContain('brand=mastercard');
    await expectAccessible(page);

    // Saved under a name; listed above the table on the bare list, and opened from there.
    await page.getByLabel('Name of this view').fill('Refunded mastercards');
    await page.getByRole('button', { name: 'Save view' }).click();
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Transactions' }).click();
    await expect(rows).toHaveCount(3);
    const views = page.getByRole('region', { name: 'Saved views' });
    await views.getByRole('link', { name: 'Refunded mastercards' }).click();
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText('lamp-1');
    await expect(page.getByLabel('Status')).toHaveValue('partially_refunded');
    await expect(page.getByLabel('Card brand')).toHaveValue('mastercard');
    await expectAccessible(page);

    await views.getByRole('button', { name: 'Delete Refunded mastercards' }).click();
    await expect(rows).toHaveCount(3);
    await expect(page.getByRole('link', { name: 'Refunded mastercards' })).toHaveCount(0);
    expect(scripts).toEqual([]);
  } finally {
    await stop();
  }
});
