import { expect, test } from './fixtures';
import { expectAccessible, payAsCustomer, payByCard, signUp } from './dashboard-data';

// The dashboard's Payments job in Chromium (issue 47): a customer quotes what they have (their
// email, the reference their paid screen showed, the card's last four with the amount) and
// the merchant finds the payment from the list's own box and from the header; then refunds
// part of it with a reason, by keyboard alone, in a dialog without script; the list and the
// page read "Partially refunded" and the API has the reason; a held payment is captured with a
// reason from its dialog the same way. Every page axe-clean at 360 and 1280 px, light and dark.

test('find a payment by email, reference and last four + amount; refund part of it with a reason by keyboard', async ({ page, service }) => {
  test.setTimeout(240_000);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  const run = Math.random().toString(36).slice(2, 8);
  const email = `grace.${run}@customer.example`;
  const cents = 10 + Math.floor(Math.random() * 89);
  const amount = `37.${cents}`;
  const tx = await service.createTransaction({
    currency: 'EUR',
    order_id: `lamp-${run}`,
    customer_email: email,
    gateway_selected: true,
    products: [{ amount: 1, product: { name: 'Desk lamp', price: Number(amount) } }],
  });
  await payByCard(page, tx.payment_url, '5555 5555 5555 4444');
  // What the customer was shown, and will quote.
  const reference = (await page.locator('.receipt__ref').textContent())!.trim();
  expect(reference).toMatch(/^[0-9A-F]{4}-[0-9A-F]{4}$/);

  await signUp(page, service, `refunds.${run}@shop.example`, 'admin');
  await page.getByRole('link', { name: 'Transactions' }).click();
  const box = page.getByRole('searchbox', { name: 'Search', exact: true });
  const rows = page.getByRole('region', { name: 'Transactions' }).locator('tbody tr');
  const row = rows.filter({ hasText: email });

  // By the customer's email, in the list's own box.
  await box.fill(email);
  await box.press('Enter');
  await expect(rows).toHaveCount(1);
  await expect(row).toContainText(`€${amount}`);
  await expect(row).toContainText('Paid');
  await expect(row).toContainText('mastercard •••• 4444');
  await expect(row).toContainText(reference);
  await expectAccessible(page);

  // By the reference, in the header's box: the payment itself is found.
  const header = page.getByRole('search').getByRole('searchbox', { name: 'Search everything' });
  await header.fill(reference);
  await header.press('Enter');
  await expect(page.getByRole('region', { name: 'Payments', exact: true }).getByRole('link')).toHaveCount(1);
  await expectAccessible(page);

  // By the last four and the amount together, in the list's box.
  await page.getByRole('link', { name: 'Transactions' }).click();
  await box.fill(`4444 ${amount}`);
  await box.press('Enter');
  await expect(rows).toHaveCount(1);
  await expect(row).toContainText(reference);

  // Nothing found says so.
  await box.fill(`nobody.${run}@nowhere.example`);
  await box.press('Enter');
  await expect(page.getByText('No payment matches your search and filters.')).toBeVisible();
  await expectAccessible(page);

  // The payment's page: its summary first, Refund its first action.
  await box.fill(reference);
  await box.press('Enter');
  await row.getByRole('link', { name: `€${amount}` }).click();
  await expect(page.getByTestId('reference')).toHaveText(reference);
  await expect(page.getByText(email, { exact: true })).toBeVisible();
  // The receipt the service emailed the customer (the e2e service's mail job runs on its own).
  await expect(page.getByTestId('receipt')).toContainText(`to ${email}`);
  await expectAccessible(page);

  // By keyboard: the button opens the refund's dialog on the amount (empty: typed); Escape
  // closes it, untouched; then the amount, the reason, Continue, then Yes.
  const dialog = page.getByRole('dialog', { name: 'Refund a payment' });
  const field = dialog.getByLabel('Amount to refund (EUR)');
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: 'Refund…' }).first().focus();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeVisible();
  await expect(field).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await page.getByRole('button', { name: 'Refund…' }).first().focus();
  await page.keyboard.press('Enter');
  await expect(field).toBeFocused();
  await expect(field).toHaveValue('');
  // One field under the other: the amount's hint above the reason's label, not beside it.
  const hint = (await dialog.locator('.hint').first().boundingBox())!;
  const reasonLabel = (await dialog.locator('label', { hasText: 'Reason' }).boundingBox())!;
  expect(reasonLabel.y).toBeGreaterThanOrEqual(hint.y + hint.height);
  // A modal dialog: Tab goes round its own controls (by the browser's own stop, the body),
  // never to a control of the page behind it.
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press('Tab');
    expect(await dialog.evaluate((d) => d.contains(document.activeElement) || document.activeElement === document.body), `Tab ${i + 1}`).toBe(true);
  }
  await expectAccessible(page);
  await expect(dialog).toBeVisible();
  await field.focus();
  await page.keyboard.type('10.00');
  await page.keyboard.press('Tab');
  const reason = page.getByLabel('Reason');
  await expect(reason).toBeFocused();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
  await expect(reason).toHaveValue('requested_by_customer');
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Continue' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByText('Reason: Requested by the customer.')).toBeVisible();
  await expectAccessible(page);
  await page.getByRole('button', { name: 'Yes, refund €10.00' }).focus();
  await page.keyboard.press('Enter');

  await expect(page.getByText('Done: Refund of €10.00.')).toBeVisible();
  await expect(page.locator('.summary [data-status]')).toHaveText('Partially refunded');
  // In the sale's history (the timeline says it too).
  await expect(page.locator('.sale').getByText('Refunded €10.00 (Requested by the customer)')).toBeVisible();
  await expectAccessible(page);

  await page.getByRole('link', { name: 'Transactions' }).click();
  await box.fill(email);
  await box.press('Enter');
  await expect(row).toContainText('Partially refunded');
  await expectAccessible(page);

  // The API has the reason on the refund operation.
  const sales = await service.api('GET', `/sale/?transaction_id=${tx.id}`);
  const sale = sales.body.results[0];
  expect(sale.reference).toBe(reference);
  expect(sale.operations.at(-1)).toMatchObject({ kind: 'refund', amount: 10, reason: 'requested_by_customer' });

  // A held payment: Capture… asks for the amount and, optionally, the same reasons.
  const held = await service.createTransaction({
    currency: 'EUR',
    order_id: `held-${run}`,
    gateway_selected: true,
    authorize: true,
    products: [{ amount: 1, product: { name: 'Desk lamp', price: 30 } }],
  });
  await payAsCustomer(held.payment_url);
  await page.goto(`${service.url}/dashboard/transactions/${held.id}/`);
  const capture = page.getByRole('dialog', { name: 'Capture a payment' });
  await page.getByRole('button', { name: 'Capture…' }).first().click();
  await expect(capture.getByLabel('Amount to capture (EUR)')).toBeFocused();
  await capture.getByLabel('Amount to capture (EUR)').fill('12.00');
  await expect(capture.getByLabel('Reason (optional)')).toHaveValue('');
  await capture.getByLabel('Reason (optional)').selectOption({ label: 'Other' });
  await expectAccessible(page);
  await capture.getByRole('button', { name: 'Continue' }).click();
  await expect(page.getByText('Reason: Other.')).toBeVisible();
  await page.getByRole('button', { name: 'Yes, capture €12.00' }).click();
  await expect(page.getByText('Done: Capture of €12.00.')).toBeVisible();
  await expect(page.locator('.sale').getByText('Captured €12.00 (Other)')).toBeVisible();
  const heldSale = (await service.api('GET', `/sale/?transaction_id=${held.id}`)).body.results[0];
  expect(heldSale.operations.at(-1)).toMatchObject({ kind: 'capture', amount: 12, reason: 'other' });
  expect(scripts).toEqual([]);
});
