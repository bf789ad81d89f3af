import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from '../../server/payments/redsys/gateway';
import { expect, returnTo, test } from './fixtures';
import { useRedsysShop } from './redsys-shop';

// Redsys by redirect in a real browser (docs/processors.md "Connecting Redsys"): the demo
// sandbox connects the Redsys test double (REDSYS_URL) with Redsys's published test
// terminal; the customer chooses Redsys's card or Bizum on our page, is posted to the
// double's payment page (our page's form, which submits itself with JavaScript and shows
// its button without), decides there, and the double's signed notification marks the
// payment paid before the customer is back at the shop; or is declined and comes back to
// our page, which says so. A card saved on the save page through the double's page, and
// charged. With JavaScript on and off.

const shop = useRedsysShop();

for (const javaScriptEnabled of [true, false]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled });

    const payable = (origin: string, order: string) =>
      shop.service.createTransaction({ currency: 'EUR', order_id: order, products: [{ amount: 1, product: { name: 'Coffee', price: 12.5 } }], gateway_selected: false, return_url: `${origin}/return?order=${order}` });

    /** Our page: the gateway chosen, then posted on to the double's payment page. */
    async function toRedsys(page: import('@playwright/test').Page, url: string, gateway: string, heading: string) {
      await page.goto(url);
      await page.locator(`input[type="radio"][value="${gateway}"]`).check();
      await page.locator('button[name="action"][value="pay"]').click();
      // Without JavaScript our page's form waits for the customer's click.
      if (!javaScriptEnabled) await page.locator('#redirect button[type="submit"]').click();
      await page.waitForURL(`${shop.redsys.url}/sis/realizarPago`);
      await expect(page.getByRole('heading', { name: heading })).toBeVisible();
      await expect(page.locator('[data-amount]')).toHaveText('12.50');
    }

    test('pays by card on Redsys’s page and lands on the shop, paid by the notification', async ({ page, merchant }) => {
      const order = `R-${javaScriptEnabled ? 'js' : 'nojs'}-1`;
      const tx = await payable(merchant.origin, order);
      await toRedsys(page, tx.payment_url, REDSYS_CARD_ID, 'Card payment');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(returnTo(`${merchant.origin}/return?order=${order}`));
      expect(shop.redsys.notifications.at(-1)).toMatchObject({ status: 204 });
      const sales = await shop.service.api('GET', `/sale/?transaction_id=${tx.id}`);
      expect(sales.body.results).toMatchObject([{ status: 'captured', amount: 12.5, gateway: REDSYS_CARD_ID }]);
    });

    test('pays with Bizum on Redsys’s page', async ({ page, merchant }) => {
      const order = `R-${javaScriptEnabled ? 'js' : 'nojs'}-2`;
      const tx = await payable(merchant.origin, order);
      await toRedsys(page, tx.payment_url, REDSYS_BIZUM_ID, 'Bizum payment');
      await page.getByRole('button', { name: 'Pay with Bizum' }).click();
      await page.waitForURL(returnTo(`${merchant.origin}/return?order=${order}`));
      const sales = await shop.service.api('GET', `/sale/?transaction_id=${tx.id}`);
      expect(sales.body.results).toMatchObject([{ status: 'captured', amount: 12.5, gateway: REDSYS_BIZUM_ID }]);
    });

    test('saves a card on Redsys’s page (a validation of 0.00), back at the shop; the card is then charged', async ({ page, merchant }) => {
      const done = `${merchant.origin}/saved?c=${javaScriptEnabled ? 'js' : 'nojs'}`;
      const request = await shop.service.api('POST', '/authorization/', { gateway: REDSYS_CARD_ID, return_url: done });
      expect(request.status, JSON.stringify(request.body)).toBe(201);
      await page.goto(request.body.url);
      await page.locator('button[name="action"][value="pay"]').click();
      if (!javaScriptEnabled) await page.locator('#redirect button[type="submit"]').click();
      await page.waitForURL(`${shop.redsys.url}/sis/realizarPago`);
      await expect(page.getByRole('heading', { name: 'Card payment' })).toBeVisible();
      await expect(page.locator('[data-amount]')).toHaveText('0.00');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.waitForURL(done);
      expect((await shop.service.api('GET', `/authorization/${request.body.id}/`)).body).toMatchObject({ status: 'active' });
      const charged = await shop.service.api('POST', `/authorization/${request.body.id}/charge/`, { amount: 5, currency: 'EUR' });
      expect(charged.status, JSON.stringify(charged.body)).toBe(201);
      expect(shop.redsys.requests.at(-1)!.params).toMatchObject({ DS_MERCHANT_COF_INI: 'N', DS_MERCHANT_EXCEP_SCA: 'MIT' });
    });

    test('a decline brings the customer back to our page, which says so; nothing is paid', async ({ page, merchant }) => {
      const tx = await payable(merchant.origin, `R-${javaScriptEnabled ? 'js' : 'nojs'}-3`);
      await toRedsys(page, tx.payment_url, REDSYS_CARD_ID, 'Card payment');
      await page.getByRole('button', { name: 'Deny' }).click();
      await page.waitForURL(new RegExp(`/pay/${tx.token}/\\?declined=1`));
      await expect(page.locator('#checkout-alert')).not.toBeEmpty();
      expect((await shop.service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
      expect((await shop.service.api('GET', `/sale/?transaction_id=${tx.id}`)).body.count).toBe(0);
    });
  });
}
