import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { expect, returnTo, test } from './fixtures';
import { useStripeShop } from './stripe-shop';

// Stripe Checkout by redirect in a real browser (docs/processors.md "Checkout by redirect"):
// the demo sandbox connects the Stripe test double (STRIPE_API_URL) through the processors
// API; the customer chooses Stripe's card on our page, is sent to the double's Checkout page
// (another origin, allowed by the page's CSP only because the double stands in), pays there
// and comes back to the shop; or is declined or fails 3-D Secure there, comes back to our
// page, which says so, and pays with another attempt. With JavaScript on and off: the
// page's own script is never needed to reach Stripe.

const shop = useStripeShop('Checkout');

for (const javaScriptEnabled of [true, false]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled });

    const payable = (origin: string, order: string) =>
      shop.service.createTransaction({ currency: 'EUR', order_id: order, products: [{ amount: 1, product: { name: 'Coffee', price: 12.5 } }], gateway_selected: false, return_url: `${origin}/return?order=${order}` });

    /** Our page (opened at `url`, or the one the customer is on): Stripe's card chosen, then on to the double's Checkout page. */
    async function toCheckout(page: import('@playwright/test').Page, url?: string) {
      if (url) await page.goto(url);
      await page.locator(`input[type="radio"][value="${STRIPE_CARD_ID}"]`).check();
      await page.locator('button[name="action"][value="pay"]').click();
      await page.waitForURL(new RegExp(`^${shop.stripe.url}/c/pay/cs_test_`));
      await expect(page.getByRole('heading', { name: 'Pay 12.50 EUR' })).toBeVisible();
    }

    test('pays with 3-D Secure on Stripe’s page and lands on the shop, the sale authenticated', async ({ page, merchant }) => {
      const order = `S-${javaScriptEnabled ? 'js' : 'nojs'}-1`;
      const tx = await payable(merchant.origin, order);
      await toCheckout(page, tx.payment_url);
      await page.getByRole('button', { name: 'Pay with 3-D Secure: complete' }).click();
      await page.waitForURL(returnTo(`${merchant.origin}/return?order=${order}`));
      const sales = await shop.service.api('GET', `/sale/?transaction_id=${tx.id}`);
      expect(sales.body.results).toMatchObject([{ status: 'captured', amount: 12.5, gateway: STRIPE_CARD_ID, authentication: { status: 'authenticated', method: 'challenge' } }]);
    });

    test('a failed 3-D Secure and a decline stay on Stripe’s page; back at the shop’s page it says so, nothing is paid, and the next attempt pays', async ({ page, merchant }) => {
      const order = `S-${javaScriptEnabled ? 'js' : 'nojs'}-2`;
      const tx = await payable(merchant.origin, order);
      await toCheckout(page, tx.payment_url);
      // Failed at the issuer: Stripe keeps the customer on its page, the session still open.
      await page.getByRole('button', { name: 'Pay with 3-D Secure: fail' }).click();
      await expect(page.getByRole('alert')).toHaveText('We are unable to authenticate your payment method.');
      await page.getByRole('button', { name: 'Pay (declined card)' }).click();
      await expect(page.getByRole('alert')).toHaveText('Your card was declined.');
      await page.getByRole('button', { name: 'Back to the shop' }).click();
      await page.waitForURL(new RegExp(`/pay/${tx.token}/\\?declined=1`));
      await expect(page.locator('#checkout-alert')).toContainText('Your payment was declined. Try again');
      expect((await shop.service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
      expect((await shop.service.api('GET', `/sale/?transaction_id=${tx.id}`)).body.count).toBe(0);
      // Tried again from the same page: a new session, paid, one sale.
      await toCheckout(page);
      await page.getByRole('button', { name: 'Pay (approved card)' }).click();
      await page.waitForURL(returnTo(`${merchant.origin}/return?order=${order}`));
      expect((await shop.service.api('GET', `/sale/?transaction_id=${tx.id}`)).body.results).toMatchObject([{ status: 'captured', amount: 12.5 }]);
    });
  });
}
