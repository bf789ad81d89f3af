import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { axeViolations } from './axe';
import { expect, test } from './fixtures';
import { useStripeShop } from './stripe-shop';

// A charge that needs the customer, in a real browser (docs/processors.md "Payments that
// need the customer"): the demo sandbox connects the Stripe test double (STRIPE_API_URL);
// a card that always asks for 3-D Secure (Stripe's 4000 0027 6000 3184) is saved on the
// double's Checkout page; the merchant's off-session charge of it is declined
// `authentication_required`, and its sale carries a `confirm_url`. The customer opens it
// (axe finds nothing at 360 px), presses "Confirm payment", completes the authentication on
// the double's stand-in bank page and lands on our page, which says it is paid. With
// JavaScript on and off: the page has no script to need.

const shop = useStripeShop('Confirm');

for (const javaScriptEnabled of [true, false]) {
  test.describe(`JavaScript ${javaScriptEnabled ? 'on' : 'off'}`, () => {
    test.use({ javaScriptEnabled });

    test('confirms a charge that needs the customer: our page, the bank’s authentication, back to the result', async ({ page, merchant }) => {
      // The card saved on the double's Checkout page (setup mode).
      const saving = await shop.service.api('POST', '/authorization/', { gateway: STRIPE_CARD_ID, return_url: `${merchant.origin}/saved` });
      expect(saving.status, JSON.stringify(saving.body)).toBe(201);
      await page.goto(saving.body.url);
      await page.locator('button[name="action"][value="pay"]').click();
      await page.waitForURL(new RegExp(`^${shop.stripe.url}/c/pay/cs_test_`));
      await page.getByRole('button', { name: 'Save with a card that always asks for 3-D Secure: complete' }).click();
      await page.waitForURL(new RegExp(`^${merchant.origin}/saved`));

      // The merchant's charge, off-session: declined until the customer authenticates.
      const charged = await shop.service.api('POST', `/authorization/${saving.body.id}/charge/`, { amount: 24.9, currency: 'EUR', description: 'May box' });
      expect(charged.status).toBe(402);
      const sale = (await shop.service.api('GET', `/sale/?authorization_id=${saving.body.id}`)).body.results[0];
      expect(sale).toMatchObject({ failure: 'authentication_required', confirm_url: expect.stringMatching(/\/pay\/confirm\/cfm_/) });

      await page.setViewportSize({ width: 360, height: 740 });
      await page.goto(sale.confirm_url);
      const main = page.locator('main');
      await expect(page.getByRole('heading', { level: 1, name: 'Confirm your payment' })).toBeVisible();
      for (const text of ['€24.90', 'May box', '3184']) await expect(main).toContainText(text);
      // axe runs as a script in the page: with JavaScript on (the page is the same document either way).
      if (javaScriptEnabled) {
        const violations = await axeViolations(page);
        expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
      }
      const box = await page.getByRole('button', { name: 'Confirm payment' }).boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(360);

      await page.getByRole('button', { name: 'Confirm payment' }).click();
      await page.waitForURL(new RegExp(`^${shop.stripe.url}/test/3ds/pi_`));
      await page.getByRole('button', { name: 'Complete authentication' }).click();
      await page.waitForURL(/\/pay\/confirm\/cfm_[A-Za-z0-9_-]+\/return\//);
      await expect(page.getByRole('heading', { level: 1, name: 'Payment confirmed' })).toBeVisible();
      await expect(main).toContainText('€24.90 was paid to');
      expect((await shop.service.api('GET', `/sale/${sale.id}/`)).body).toMatchObject({ status: 'captured', captured: 24.9, confirm_url: null });
    });
  });
}
