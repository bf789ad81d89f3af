import { expect, startService, test } from './fixtures';
import { expectAccessible, invite, PASSWORD, payByCard } from './dashboard-data';

// The dashboard's home and settings in Chromium, on a service of their own (the figures are
// the environment's): the day's payment in the figures and the chart (its value on its bar,
// the dates and money on its axes), the chart's numbers in its table by date, the brand
// changed on the settings page and its sketch; axe-clean in light and dark at 360 px and
// 1280 px, with no script.



test('the home shows the day’s payment in its figures and chart, settings change the brand; both pass axe', async ({ page }) => {
  test.setTimeout(150_000);
  const { service, stop } = await startService();
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  try {
    const tx = await service.createTransaction({ currency: 'EUR', order_id: 'home-1', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price: 42 } }] });
    await payByCard(page, tx.payment_url);

    await page.goto(await invite(service, 'home@shop.example'));
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

    const totals = page.getByTestId('totals-EUR');
    await expect(totals.locator('tr[data-kind="payments"] td[data-period="1"]')).toHaveText('€42.00 (1)');
    const chart = page.getByRole('figure', { name: 'Payments in EUR per day, last 30 days (UTC)' });
    await expect(chart.getByRole('img')).toHaveAttribute('aria-label', /€42\.00 in 1 payments/);
    await expect(chart.locator('rect.bar')).toHaveCount(1);
    // The day's bar has its value written on it and its date and value as a tooltip; the
    // date axis ends on today, as the browser's language (English) writes dates.
    const today = new Intl.DateTimeFormat('en', { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date());
    await expect(chart.locator('text.value')).toHaveText(['€42.00']);
    await expect(chart.locator('rect.bar title')).toHaveText(`${today}: €42.00 (1)`);
    await expect(chart.locator('text.date').last()).toHaveText(today);
    await expect(chart.locator('text.money')).toHaveText(['€0.00', '€25.00', '€50.00']);
    await expectAccessible(page);
    // The same numbers as a table, for whoever cannot see the bars: today's row, by its date.
    await chart.getByText('The numbers per day in EUR').click();
    const row = chart.getByRole('row').last();
    await expect(row.getByRole('rowheader')).toHaveText(today);
    await expect(row.getByRole('cell').first()).toHaveText('€42.00 (1)');
    await expectAccessible(page);

    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page.getByRole('heading', { name: 'Settings', level: 1 })).toBeVisible();
    await page.getByLabel('Business name').fill('Lamp Works');
    await page.getByLabel('Brand colour').fill('#0f766e');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Settings saved.')).toBeVisible();
    await expect(page.getByTestId('brand-preview')).toHaveAttribute('aria-label', /Lamp Works.*#0f766e/);
    await expectAccessible(page);
    // A colour that is not one: the form says so, in place.
    await page.getByLabel('Accent colour').fill('yellow');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByTestId('error-accent_color')).toBeVisible();
    await expect(page.getByLabel('Accent colour')).toHaveAttribute('aria-invalid', 'true');
    await expectAccessible(page);

    // The payment page shows the new name.
    const next = await service.createTransaction({ currency: 'EUR', order_id: 'home-2', products: [{ amount: 1, product: { name: 'Desk lamp', price: 5 } }] });
    await page.goto(next.payment_url);
    await expect(page.getByText('Lamp Works').first()).toBeVisible();
    expect(scripts).toEqual([]);
  } finally {
    await stop();
  }
});
