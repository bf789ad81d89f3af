import type { Page } from '@playwright/test';
import { expect, startService, test } from './fixtures';
import { expectAccessible, invite, PASSWORD, payAsCustomer } from './dashboard-data';

// The dashboard's home and settings in Chromium, on a service of their own (the figures are
// the environment's): the day's payment in the figures and the chart (its value on its bar,
// the dates and money on its axes), its net, a new bank account's hold in what needs
// attention, the chart's numbers in its table by date, the brand
// chosen with the settings' colour picker, previewed on the payment page at 360 px and
// 1280 px, then saved; axe-clean in light and dark at 360 px and 1280 px, with no script.

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;

/** Both frames of the preview show the payment page at their width, with `name` and its pay button in `color` (the light scheme's). */
async function expectPreview(page: Page, name: string, color: string) {
  // expectAccessible leaves the dark scheme on, where the page wears the colour's light variant.
  await page.emulateMedia({ colorScheme: 'light' });
  for (const [size, width] of [['phone', 360], ['desktop', 1280]] as const) {
    const frame = page.frameLocator(`[data-testid="preview-${size}"]`);
    await expect(frame.getByRole('heading', { name, level: 1 })).toBeVisible();
    await expect(frame.locator('button[name="action"][value="pay"]')).toHaveCSS('background-color', rgb(color));
    expect(await frame.locator('html').evaluate(() => window.innerWidth)).toBe(width);
  }
}

test('the home shows the day’s payment in its figures and chart, settings change the brand; both pass axe', async ({ page }) => {
  test.setTimeout(150_000);
  const { service, stop } = await startService();
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  try {
    const tx = await service.createTransaction({ currency: 'EUR', order_id: 'home-1', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price: 42 } }] });
    await payAsCustomer(tx.payment_url);
    // A first bank account, then another: payouts are held until an owner confirms the new one.
    for (const iban of ['ES9121000418450200051332', 'DE89370400440532013000']) expect((await service.api('PATCH', '/payout_settings/', { iban, schedule: 'manual' })).status).toBe(200);

    await page.goto(await invite(service, 'home@shop.example'));
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

    const totals = page.getByTestId('totals-EUR');
    await expect(totals.locator('tr[data-kind="payments"] td[data-period="1"]')).toHaveText('€42.00 (1)');
    await expect(totals.getByRole('rowheader', { name: 'Net (after fees, refunds and disputes)' })).toBeVisible();
    const attention = page.getByTestId('attention');
    await expect(attention.getByRole('heading', { name: 'Payouts to your bank account' })).toBeVisible();
    await expect(attention.getByRole('link', { name: /^New bank account ending 3000: payouts held until/ })).toHaveAttribute('href', '/dashboard/balance/');
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
    // A colour chosen with the picker: "Preview" shows it on the payment page itself, at a
    // phone's and a desktop's width, and its contrast in words, before anything is saved.
    await page.getByLabel('Brand colour picker').fill('#0f766e');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    await expect(page.getByRole('status')).toContainText('nothing is saved until you press Save');
    expect((await service.api('GET', '/environment/branding/')).body).toMatchObject({ display_name: null, brand_color: null });
    await expectPreview(page, 'Lamp Works', '#0f766e');
    await expect(page.getByTestId('brand_color-contrast')).toHaveText('The pay button writes light text on #0f766e: contrast 5.47:1 (4.5:1 needed). Your colour is kept.');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByText('Settings saved.')).toBeVisible();
    expect((await service.api('GET', '/environment/branding/')).body).toMatchObject({ display_name: 'Lamp Works', brand_color: '#0f766e' });
    await expectPreview(page, 'Lamp Works', '#0f766e');
    await expectAccessible(page);
    // A colour that is not one: the form says so, in place.
    await page.getByLabel('Accent colour', { exact: true }).fill('yellow');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page.getByTestId('error-accent_color')).toBeVisible();
    await expect(page.getByLabel('Accent colour', { exact: true })).toHaveAttribute('aria-invalid', 'true');
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
