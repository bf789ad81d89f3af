import { statSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from './fixtures';
import { invite, richTransactions } from './dashboard-data';
import { LAPTOP } from './screen';

// The screenshots of docs/dashboard.md, made from the real service in Chromium at 360 px and
// 1280 px: sign-in, the transactions list, a transaction. `npm run docs:screenshots` writes
// them into docs/images/; any other run writes them into the test's output folder, so the
// pages and the size budget are checked without touching the docs.

const UPDATE = process.env.UPDATE_SCREENSHOTS === '1';
const DOCS_IMAGES = new URL('../../docs/images/', import.meta.url).pathname;
/** Each PNG stays small enough for a README-style page to load quickly. */
const MAX_BYTES = 150 * 1024;
const SIZES = [
  { width: 360, height: 740 },
  LAPTOP,
];

test('screenshots of sign-in, the transactions list and a transaction, each under 150 KB', async ({ page, service }, info) => {
  test.setTimeout(180_000);
  const { held } = await richTransactions(page, service, 'docs');
  for (const [i, price] of [12.5, 89, 240].entries()) await service.createTransaction({ currency: 'EUR', order_id: `order-100${i}`, products: [{ amount: 1, product: { name: 'Desk lamp', price } }] });
  await page.goto(await invite(service, 'docs@shop.example', 'admin'));
  await page.getByLabel('New password').fill('a long and unusual passphrase');
  await page.getByRole('button', { name: 'Set password and sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  const shots: [string, string][] = [
    ['transactions', `${service.url}/dashboard/transactions/`],
    ['transaction', `${service.url}/dashboard/transactions/${held.id}/`],
  ];
  const take = async (name: string) => {
    for (const size of SIZES) {
      await page.setViewportSize(size);
      const file = join(UPDATE ? DOCS_IMAGES : info.outputPath(), `dashboard-${name}-${size.width}.png`);
      await page.screenshot({ path: file, animations: 'disabled' });
      expect(statSync(file).size, file).toBeLessThan(MAX_BYTES);
    }
  };
  await page.emulateMedia({ colorScheme: 'light' });
  for (const [name, url] of shots) {
    await page.goto(url);
    await take(name);
  }
  await page.context().clearCookies();
  await page.goto(`${service.url}/dashboard/sign-in/`);
  await take('sign-in');
});
