import type { Page } from '@playwright/test';
import { expect, startService, test, CARDS } from './fixtures';
import { expectAccessible, invite, PASSWORD, payAsCustomer } from './dashboard-data';

// The disputes pages in Chromium: a sale paid with the sandbox bank's disputing card is
// disputed by the service's own job a moment later, and the list shows it as needing a
// response, with its deadline and the payment's order, customer and card; its page takes evidence and a file (by keyboard alone), and
// submits them after asking once more, as the API then shows. Every page axe-clean in
// light and dark at 360 px and 1280 px.

const PDF = Buffer.from('%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n');

/**
 * Puts files in the file field the keyboard has reached, then sends its form with Tab and
 * Enter. The files are set on the field itself: the chooser Space opens is the operating
 * system's, and waiting for Chromium's stand-in for it (the `filechooser` event) missed
 * its second opening in one CI run.
 */
async function chooseAndSend(page: Page, files: { name: string; mimeType: string; buffer: Buffer }[]): Promise<void> {
  const field = page.getByLabel('Files (PDF, PNG, JPEG or WebP)');
  await expect(field).toBeFocused();
  await field.setInputFiles(files);
  await expect(field).toBeFocused();
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Add the file' })).toBeFocused();
  await page.keyboard.press('Enter');
}

test('a disputed sale is listed as needing a response, answered with evidence and a file on its page and submitted, and the pages pass axe', async ({ page }) => {
  test.setTimeout(240_000);
  const { service, stop } = await startService({ SANDBOX_DISPUTE_DELAY_MS: '0' });
  try {
    const tx = await service.createTransaction({ currency: 'EUR', order_id: 'disputed-1', customer_email: 'buyer@shop.example', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price: 30 } }] });
    // Paid as its screen pays (the page's JSON post, which must answer the paid view), not
    // drawn in Chromium: the subject is the dispute that follows (checkout.spec.ts draws it).
    await payAsCustomer(tx.payment_url, CARDS.disputedFraudulent);
    const sale = (await service.api('GET', `/sale/?transaction_id=${tx.id}`)).body.results[0];
    await expect.poll(async () => (await service.api('GET', `/dispute/?sale=${sale.id}`)).body.count, { timeout: 15_000 }).toBe(1);

    await page.goto(await invite(service, 'disputes@shop.example'));
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('link', { name: 'Disputes' }).click();
    await expect(page.getByRole('heading', { name: 'Needing your response' })).toBeVisible();
    const row = page.getByTestId('dispute-awaiting').first();
    await expect(row).toContainText('Fraudulent (the cardholder says they did not pay)');
    await expect(row).toContainText(`Payment ${sale.reference}`);
    await expect(row).toContainText('€30.00');
    await expect(row.getByTestId('dispute-order')).toHaveText('disputed-1');
    await expect(row.getByTestId('dispute-customer')).toHaveText('buyer@shop.example');
    await expect(row.getByTestId('dispute-card')).toHaveText('visa •••• 0259');
    await expectAccessible(page);

    // The dispute's page, from its row.
    const dispute = (await service.api('GET', `/dispute/?sale=${sale.id}`)).body.results[0];
    await row.getByRole('link').click();
    await expect(page).toHaveURL(new RegExp(`/dashboard/disputes/${dispute.id}/$`));
    await expect(page.getByTestId('status')).toHaveText('Needs your response');
    await expect(page.getByRole('link', { name: `Payment ${sale.reference}` })).toBeVisible();
    await expect(page.getByTestId('dispute-order')).toHaveText('disputed-1');
    await expect(page.getByTestId('dispute-customer')).toHaveText('buyer@shop.example');
    await expect(page.getByTestId('dispute-card')).toHaveText('visa •••• 0259');
    await expectAccessible(page);

    // A field too long is refused on the field, nothing saved; then the evidence is saved.
    // A fraud claim asks first for who the customer is; the other fields are one click away.
    await expect(page.getByText('The cardholder says they did not make this payment.')).toBeVisible();
    await expect(page.getByLabel('Product or service description')).toBeHidden();
    await page.getByText('More evidence (optional)').click();
    await page.getByLabel('Customer name').fill('x'.repeat(20_001));
    await page.getByLabel('Product or service description').fill('Desk lamp, delivered 3 January');
    await page.getByRole('button', { name: 'Save evidence' }).click();
    await expect(page.getByTestId('error-customer_name')).toBeVisible();
    await expect(page.getByLabel('Customer name')).toHaveAttribute('aria-invalid', 'true');
    await expectAccessible(page);
    expect((await service.api('GET', `/dispute/${dispute.id}/`)).body.evidence.product_description).toBeNull();
    await page.getByLabel('Customer name').fill('Ada Lovelace');
    await page.getByLabel('Shipping date').fill('2026-01-03');
    await page.getByRole('button', { name: 'Save evidence' }).click();
    await expect(page.getByRole('status')).toContainText('Evidence saved');
    await expect(page.getByTestId('evidence-product_description')).toHaveText('Desk lamp, delivered 3 January');

    // A file, by keyboard: from the form's button, Tab reaches the file field. A file that is
    // not one of the types taken is refused in words on the field; then a PDF is added.
    const fileField = page.getByLabel('Files (PDF, PNG, JPEG or WebP)');
    await page.getByRole('button', { name: 'Save evidence' }).focus();
    await page.keyboard.press('Tab');
    await chooseAndSend(page, [{ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a receipt') }]);
    await expect(page.getByTestId('error-file')).toHaveText('This file is not a PDF, PNG, JPEG or WebP file named as its type (.pdf, .png, .jpg, .webp).');
    await expect(fileField).toHaveAttribute('aria-invalid', 'true');
    await expectAccessible(page);
    expect((await service.api('GET', `/dispute/${dispute.id}/`)).body.evidence.files).toEqual([]);
    await page.getByRole('button', { name: 'Save evidence' }).focus();
    await page.keyboard.press('Tab');
    await chooseAndSend(page, [{ name: 'delivery.pdf', mimeType: 'application/pdf', buffer: PDF }]);
    await expect(page.getByRole('status')).toContainText('File added');
    await expect(page.getByTestId('dispute-file')).toHaveCount(1);
    await expect(page.getByTestId('dispute-file')).toContainText('delivery.pdf');
    await expectAccessible(page);

    // Submitting asks once more, naming the environment.
    await page.getByRole('button', { name: 'Submit evidence' }).click();
    await expect(page.getByRole('heading', { name: 'Submit the evidence?' })).toBeVisible();
    await expect(page.getByText('In the environment Demo shop (sandbox).')).toBeVisible();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Yes, submit the evidence' }).click();
    await expect(page.getByRole('status')).toContainText('Evidence submitted');
    await expect(page.getByTestId('status')).toHaveText('Under review by the bank');
    await expect(page.getByRole('button', { name: 'Save evidence' })).toHaveCount(0);

    const seen = (await service.api('GET', `/dispute/${dispute.id}/`)).body;
    expect(seen.status).toBe('under_review');
    expect(seen.submitted).not.toBeNull();
    expect(seen.evidence).toMatchObject({ product_description: 'Desk lamp, delivered 3 January', customer_name: 'Ada Lovelace', shipping_date: '2026-01-03' });
    expect(seen.evidence.files).toMatchObject([{ name: 'delivery.pdf', content_type: 'application/pdf', size: PDF.length }]);
  } finally {
    await stop();
  }
});
