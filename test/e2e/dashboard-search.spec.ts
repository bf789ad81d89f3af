import { expect, test } from './fixtures';
import { expectAccessible, invite, PASSWORD, payAsCustomer } from './dashboard-data';

// The header's search box in Chromium: a payment found as a bank statement shows it (the
// card's last four and the amount, typed in the box of any page), its page one click away,
// an exact id straight to its page; the results page axe-clean in light and dark at 360 px
// and 1280 px, with no script and nothing wider than the screen.



test('the last four and the amount typed in the header find the payment; its link opens it; the results pass axe', async ({ page, service }) => {
  test.setTimeout(150_000);
  const scripts: string[] = [];
  page.on('request', (r) => r.resourceType() === 'script' && r.url().includes('/dashboard/') && scripts.push(r.url()));
  const tx = await service.createTransaction({ currency: 'EUR', order_id: 'statement-lamp', gateway_selected: true, products: [{ amount: 1, product: { name: 'Desk lamp', price: 31.17 } }] });
  await payAsCustomer(tx.payment_url);

  await page.goto(await invite(service, 'search@shop.example', 'viewer'));
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  // From any page: the header's box, as a person reads a bank statement, amount first.
  await page.getByRole('link', { name: 'Transactions' }).click();
  const box = page.getByRole('search').getByRole('searchbox', { name: 'Search everything' });
  await box.fill('31,17 4242');
  await box.press('Enter');
  await expect(page).toHaveURL(/\/dashboard\/search\/\?q=31%2C17\+4242$/);
  await expect(page.getByRole('heading', { name: 'Search', level: 1 })).toBeVisible();
  const payments = page.getByRole('region', { name: 'Payments', exact: true });
  await expect(payments.getByRole('link')).toHaveCount(1);
  await expect(page.getByRole('search').getByRole('searchbox')).toHaveValue('31,17 4242');
  await expectAccessible(page);

  await payments.getByRole('link', { name: /4242 · €31\.17/ }).click();
  await expect(page).toHaveURL(`${service.url}/dashboard/transactions/${tx.id}/`);
  await expect(page.getByRole('heading', { name: 'Transaction statement-lamp' })).toBeVisible();

  // The transaction's id goes straight to its page.
  await page.getByRole('searchbox', { name: 'Search everything' }).fill(tx.id);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await expect(page).toHaveURL(`${service.url}/dashboard/transactions/${tx.id}/`);

  // Nothing found, and a text too long for a search: the messages pass axe too.
  await page.goto(`${service.url}/dashboard/search/?q=nothing-like-this`);
  await expect(page.getByText('Nothing in this environment matches')).toBeVisible();
  await expectAccessible(page);
  await page.goto(`${service.url}/dashboard/search/?q=${'x'.repeat(201)}`);
  await expect(page.getByRole('alert')).toContainText('The search is too long');
  await expectAccessible(page);
  expect(scripts).toEqual([]);
});
