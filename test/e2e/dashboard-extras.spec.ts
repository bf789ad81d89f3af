import { readFile } from 'node:fs/promises';
import { CARDS, expect, type Service, test } from './fixtures';
import { demoEnvironment, expectAccessible, keys, payAsCustomer, signUp } from './dashboard-data';

// The dashboard's logo in the settings form, a subscription's charges and the payouts to the merchant in
// Chromium against the real service (its jobs running): a PNG uploaded on Settings is on
// the payment page; a past_due subscription shows its failed charge; merchant payouts
// export to a CSV read back; axe on each new page in light and dark at 360 px and 1280 px.

/** A 24×24 PNG (a filled square). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAAAIElEQVR4nGNoyGegCqKOKaMGjRo0atCoQaMGjRpEEQIAr7cZ35fOyr0AAAAASUVORK5CYII=', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');



/** Polls the API until `check` holds for the answer at `path`. */
async function until(service: Service, path: string, check: (body: any) => boolean) {
  await expect.poll(async () => check((await service.api('GET', path)).body), { timeout: 30_000 }).toBe(true);
}

test('an admin saves a PNG logo in the settings form and the payment page shows it; an SVG is refused on the page', async ({ page, service }) => {
  test.setTimeout(120_000);
  await signUp(page, service, 'logo-admin@shop.example', 'admin');
  await page.getByRole('link', { name: 'Settings' }).click();
  await page.getByLabel('Logo image').setInputFiles({ name: 'logo.svg', mimeType: 'image/svg+xml', buffer: SVG });
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByTestId('error-logo')).toContainText('not a PNG, JPEG or WebP image');
  await expect(page.getByLabel('Logo image')).toHaveAttribute('aria-invalid', 'true');
  await expectAccessible(page);

  await page.getByLabel('Logo image').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page.getByRole('status')).toContainText('Settings saved');
  await expect(page.getByRole('button', { name: 'Remove logo' })).toBeVisible();
  const { logo_url: logoUrl } = (await service.api('GET', '/environment/branding/')).body;
  expect(logoUrl).toMatch(/\/brand\//);
  // The preview of the payment page shows it, loaded.
  const previewLogo = page.frameLocator('[data-testid="preview-phone"]').locator(`img.merchant__logo[src="${new URL(logoUrl).pathname}"]`);
  await expect(previewLogo).toBeVisible();
  expect(await previewLogo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(24);
  await expectAccessible(page);

  const tx = await service.createTransaction({ currency: 'EUR', order_id: 'logo-order', products: [{ amount: 1, product: { name: 'Mug', price: 9 } }] });
  await page.goto(`${service.url}/pay/${tx.token}/`);
  const logo = page.locator('img.merchant__logo');
  await expect(logo).toBeVisible();
  expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(24);

  // Removed again, so the other tests' payment pages are as they were.
  await page.goto(`${service.url}/dashboard/settings/`);
  await page.getByRole('button', { name: 'Remove logo' }).click();
  await expect(page.getByRole('status')).toContainText('Logo removed');
  expect((await service.api('GET', '/environment/branding/')).body.logo_url).toBeNull();
});

test('a past_due subscription: the list marks it, its page shows the failed charge', async ({ page, service }) => {
  test.setTimeout(120_000);
  const plan = (await service.api('POST', '/plan/', { name: 'Tea club', amount: 7.25, currency: 'EUR', interval: 'month' })).body;
  const card = (await service.api('POST', '/authorization/', { gateway: '0190f5a0-0000-7000-8000-000000000001', card: { number: CARDS.insufficientFunds, expiry: '12/34', cvc: '123', name: 'L' } })).body;
  const sub = (await service.api('POST', '/subscription/', { plan: plan.id, authorization: card.id, subscription_id: 'tea-late' })).body;
  expect(sub.id, JSON.stringify(sub)).toBeTruthy();
  await service.api('POST', `/subscription/${sub.id}/start/`);
  await until(service, `/subscription/${sub.id}/`, (s) => s.status === 'past_due');

  await signUp(page, service, 'subs-viewer@shop.example', 'viewer');
  await page.getByRole('link', { name: 'Subscriptions' }).click();
  const row = page.locator(`tr[data-subscription="${sub.id}"]`);
  await expect(row.locator('strong.overdue')).toHaveText('Past due');
  await row.getByRole('link', { name: 'Tea club · tea-late' }).click();
  await expect(page.getByRole('heading', { name: 'Tea club · tea-late' })).toBeVisible();
  const charge = page.locator('tr[data-charge="1"]');
  await expect(charge).toContainText('Failed');
  await expect(charge).toContainText('Insufficient funds');
  await expectAccessible(page);
});

test('payouts to the merchant: the list, a payout with its settlement report, and the merchant_payouts export read back', async ({ page, service }) => {
  test.setTimeout(180_000);
  const demo = await demoEnvironment(service);
  await keys(service, ['pricing', '--environment', demo, '--settlement-days', '0']);
  const tx = await service.createTransaction({ currency: 'EUR', order_id: 'payout-order', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price: 30 } }] });
  await payAsCustomer(tx.payment_url);
  await until(service, '/balance/', (b) => b.available.some((a: { currency: string; amount: number }) => a.currency === 'EUR' && a.amount > 0));
  expect((await service.api('PATCH', '/payout_settings/', { iban: 'ES9121000418450200051332', schedule: 'manual' })).status).toBe(200);
  const payout = (await service.api('POST', '/merchant_payout/', { currency: 'EUR' })).body;
  expect(payout.id, JSON.stringify(payout)).toBeTruthy();
  await until(service, `/merchant_payout/${payout.id}/`, (p) => p.status === 'paid');

  await signUp(page, service, 'payouts-owner@shop.example');
  await page.getByRole('link', { name: 'Payouts to you' }).click();
  await expect(page.getByTestId('payout-iban')).toHaveText('ES…1332');
  await expectAccessible(page);
  await page.locator(`tr[data-payout="${payout.id}"]`).getByRole('link').click();
  await expect(page.getByTestId('payout-status')).toHaveText('Paid');
  await expectAccessible(page);
  const report = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download the settlement report (CSV)' }).click();
  const reportFile = await report;
  expect(reportFile.suggestedFilename()).toBe(`settlement-${payout.id}.csv`);
  const lines = (await readFile(await reportFile.path())).toString('utf8').split('\r\n').filter(Boolean);
  expect(lines.length).toBeGreaterThan(1);
  expect(lines.slice(1).every((l) => l.startsWith(`${payout.id},`))).toBe(true);

  await page.getByRole('link', { name: 'Export' }).click();
  await page.getByLabel('What to export').selectOption('merchant_payouts');
  // The payout's own day (UTC): a run that crosses midnight must not look for it on the next.
  const today = String(payout.created).slice(0, 10);
  await page.getByLabel('From (inclusive)').fill(today);
  await page.getByLabel('To (inclusive)').fill(today);
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download CSV' }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe(`merchant_payouts-${today}-${today}.csv`);
  const csv = (await readFile(await file.path())).toString('utf8');
  const line = csv.split('\r\n').find((l) => l.startsWith(payout.id));
  // The status in words, as the page shows it.
  expect(line).toContain(',Paid,manual,,EUR,');
  expect(line).toContain(',ES…1332,');
});
