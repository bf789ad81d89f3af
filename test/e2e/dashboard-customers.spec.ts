import { expect, test } from './fixtures';
import { expectAccessible, payAsCustomer, signUp } from './dashboard-data';

// The dashboard's Customers page in Chromium (issue 47): a payer known only by the email on
// their payment and an API client in one list; the search finds each; a payer's page shows
// their payment and lifetime value after a partial refund, a client's its contact and
// sections; all without script, axe-clean in light and dark at 360 and 1280 px.

test('customers: the list, its search, a payer after a partial refund and a client, axe-clean at 360 and 1280 px without script', async ({ page, service }) => {
  test.setTimeout(240_000);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  const run = Math.random().toString(36).slice(2, 8);
  const payer = `lin.${run}@customer.example`;
  const client = await service.api('POST', '/client/', { name: `Margaret ${run} & Co`, id_country: 'GB', id_number: `MH${run}`, email: `margaret.${run}@client.example`, phone: '+441234567890' });
  expect(client.status).toBe(201);
  const tx = await service.createTransaction({
    currency: 'EUR',
    order_id: `kettle-${run}`,
    customer_email: payer,
    gateway_selected: true,
    products: [{ amount: 1, product: { name: 'Kettle', price: 40 } }],
  });
  await payAsCustomer(tx.payment_url);
  const sales = await service.api('GET', `/sale/?transaction_id=${tx.id}`);
  expect((await service.api('POST', `/sale/${sales.body.results[0].id}/refund/`, { amount: 12.5 })).status).toBe(200);

  await signUp(page, service, `customers.${run}@shop.example`, 'viewer');
  await page.getByRole('link', { name: 'Customers', exact: true }).click();
  await expect(page.getByRole('heading', { name: 'Customers', level: 1 })).toBeVisible();
  await expectAccessible(page);

  const box = page.getByRole('searchbox', { name: 'Search by name or email' });
  const rows = page.getByRole('region', { name: 'Customers' }).locator('tbody tr');
  await box.fill(`LIN.${run}`);
  await box.press('Enter');
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText(payer);
  await expect(rows.first()).toContainText('€27.50');
  await expectAccessible(page);

  await rows.first().getByRole('link', { name: payer }).click();
  await expect(page.getByRole('heading', { name: payer, level: 1 })).toBeVisible();
  await expect(page.locator('#lifetime-value')).toHaveText('€27.50');
  await expect(page.getByRole('region', { name: 'Transactions' }).getByRole('link', { name: '€40.00' })).toHaveAttribute('href', `/dashboard/transactions/${tx.id}/`);
  await expectAccessible(page);

  await page.getByRole('link', { name: 'Customers', exact: true }).first().click();
  await box.fill(`margaret ${run}`);
  await box.press('Enter');
  await expect(rows).toHaveCount(1);
  await rows.first().getByRole('link', { name: `Margaret ${run} & Co` }).click();
  await expect(page.getByRole('heading', { name: `Margaret ${run} & Co`, level: 1 })).toBeVisible();
  await expect(page.getByText('No wallets.')).toBeVisible();
  await expectAccessible(page);
  expect(scripts).toEqual([]);
});
