import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { expect, test } from './fixtures';
import { useStripeShop } from './stripe-shop';

// A subscription's sign-up with Stripe in a real browser, JavaScript on (docs/subscriptions.md
// "The hosted sign-up"): the demo sandbox connects the Stripe test double; the sign-up page
// offers Stripe beside the sandbox card, asks the optional email on our page, and sends the
// customer to the double's Checkout page in setup mode; the card saved there, the customer
// lands on the shop's return_url and the subscription is active with the card and the email.

const shop = useStripeShop('Signup');

test('signs up with Stripe: the email on our page, the card on Stripe’s, back to the shop with the subscription active', async ({ page, merchant }) => {
  const plan = await shop.service.api('POST', '/plan/', { name: 'Coffee club', amount: 9.99, currency: 'EUR', interval: 'month' });
  expect(plan.status).toBe(201);
  const sub = await shop.service.api('POST', '/subscription/', { plan: plan.body.id, return_url: `${merchant.origin}/welcome` });
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);

  await page.goto(sub.body.payment_url);
  await page.locator(`#gateway-${STRIPE_CARD_ID}`).check();
  // Stripe takes no card fields here: only the sign-up's own email.
  await expect(page.locator('input[autocomplete="cc-number"]')).toHaveCount(0);
  await page.getByLabel('Email for the confirmation (optional)').fill('ada@example.com');
  await page.locator('button[name="action"][value="pay"]').click();
  await page.waitForURL(new RegExp(`^${shop.stripe.url}/c/pay/cs_test_`));
  await expect(page.getByRole('heading', { name: 'Save a card' })).toBeVisible();
  await page.getByRole('button', { name: 'Save (approved card)' }).click();
  await page.waitForURL(new RegExp(`^${merchant.origin}/welcome\\?`));
  expect(new URL(page.url()).searchParams.get('subscription_id')).toBe(sub.body.id);

  const after = (await shop.service.api('GET', `/subscription/${sub.body.id}/`)).body;
  expect(after).toMatchObject({ status: 'active', payment_url: null, customer_email: 'ada@example.com' });
  const authorization = (await shop.service.api('GET', `/authorization/${after.authorization}/`)).body;
  expect(authorization).toMatchObject({ status: 'active', gateway: STRIPE_CARD_ID, card: { last4: '4242' } });
});
