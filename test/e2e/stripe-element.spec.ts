import type { FrameLocator, Page } from '@playwright/test';
import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { axeViolations } from './axe';
import { expect, returnTo, test } from './fixtures';
import { useStripeShop } from './stripe-shop';

// Stripe's Payment Element in a real browser (docs/processors.md "Payment Element"), in the
// hosted page and in the widget's frame, against the double's stand-in Stripe.js
// (STRIPE_JS_URL): choosing Stripe's card loads our glue and the stand-in, which draws its
// card field in the page; Pay makes the PaymentIntent on our server, the stand-in confirms it
// at the double under the publishable key, and the return route records what the double
// says. Approved, declined, and 3-D Secure failed at the double's issuer page, then
// completed by the next attempt.

const shop = useStripeShop('Element', { standInStripeJs: true });

const payable = (origin: string, order: string) =>
  shop.service.createTransaction({
    currency: 'EUR',
    order_id: order,
    products: [{ amount: 1, product: { name: 'Coffee', price: 12.5 } }],
    gateway_selected: false,
    return_url: `${origin}/return?order=${order}`,
  });

/** Stripe's card chosen, the stand-in's field typed, Pay pressed (in the page or the widget's frame). */
async function payWithElement(where: Page | FrameLocator, number: string) {
  await where.locator(`input[type="radio"][value="${STRIPE_CARD_ID}"]`).check();
  const field = where.getByLabel('Card number (Stripe test double)');
  await field.fill(number);
  // The customer pays here: no redirect to Stripe's page is announced.
  const pay = where.locator('button[name="action"][value="pay"]');
  await expect(pay).toHaveText(/Pay/);
  await pay.click();
}

const salesOf = async (id: string) => (await shop.service.api('GET', `/sale/?transaction_id=${id}`)).body.results;

test.describe('hosted page', () => {
  test('approved: the card is typed in Stripe’s field on our page, and the customer lands on the shop; axe finds nothing', async ({ page, merchant }) => {
    const tx = await payable(merchant.origin, 'E-1');
    await page.goto(tx.payment_url);
    await page.locator(`input[type="radio"][value="${STRIPE_CARD_ID}"]`).check();
    await expect(page.getByLabel('Card number (Stripe test double)')).toBeVisible();
    expect(await axeViolations(page)).toEqual([]);
    await payWithElement(page, '4242 4242 4242 4242');
    await page.waitForURL(returnTo(`${merchant.origin}/return?order=E-1`));
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', amount: 12.5, gateway: STRIPE_CARD_ID, card: { last4: '4242' } }]);
  });

  test('declined: back on our page, which says so, and nothing is paid', async ({ page, merchant }) => {
    const tx = await payable(merchant.origin, 'E-2');
    await page.goto(tx.payment_url);
    await payWithElement(page, '4000 0000 0000 0002');
    await page.waitForURL(new RegExp(`/pay/${tx.token}/\\?declined=1`));
    await expect(page.locator('#checkout-alert')).not.toBeEmpty();
    expect(await salesOf(tx.id)).toEqual([]);
    expect((await shop.service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
  });

  test('3-D Secure failed at the issuer’s page: back on our page, which says so, nothing paid; the next attempt completes it and pays', async ({ page, merchant }) => {
    const tx = await payable(merchant.origin, 'E-3');
    await page.goto(tx.payment_url);
    await payWithElement(page, '4000 0027 6000 3184');
    await page.waitForURL(new RegExp(`^${shop.stripe.url}/test/3ds/pi_`));
    await page.getByRole('button', { name: 'Fail authentication' }).click();
    await page.waitForURL(new RegExp(`/pay/${tx.token}/\\?declined=1`));
    await expect(page.locator('#checkout-alert')).toContainText('Your payment was declined. Try again');
    expect(await salesOf(tx.id)).toEqual([]);
    expect((await shop.service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
    await payWithElement(page, '4000 0027 6000 3184');
    await page.waitForURL(new RegExp(`^${shop.stripe.url}/test/3ds/pi_`));
    await page.getByRole('button', { name: 'Complete authentication' }).click();
    await page.waitForURL(returnTo(`${merchant.origin}/return?order=E-3`));
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', authentication: { status: 'authenticated', method: 'challenge' } }]);
  });
});

test.describe('widget', () => {
  const frameOf = (page: Page) => page.frameLocator('[data-checkout-token] iframe');

  async function openWidget(page: Page, merchant: import('./fixtures').Merchant, token: string, path: string) {
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><script src="${shop.service.url}/widget.js" async></script></head><body><main><h1>Shop</h1><div data-checkout-token="${token}"></div></main></body></html>`;
    await page.goto(merchant.page(path, html));
  }

  test('approved in the widget’s frame: the shop moves on to its return page', async ({ page, merchant }) => {
    const tx = await payable(merchant.origin, 'EW-1');
    await openWidget(page, merchant, tx.token, '/element-shop-1');
    await payWithElement(frameOf(page), '4242424242424242');
    await page.waitForURL(returnTo(`${merchant.origin}/return?order=EW-1`));
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', card: { last4: '4242' } }]);
  });

  test('declined in the widget’s frame: the frame says so, nothing is paid', async ({ page, merchant }) => {
    const tx = await payable(merchant.origin, 'EW-2');
    await openWidget(page, merchant, tx.token, '/element-shop-2');
    await payWithElement(frameOf(page), '4000000000000002');
    await expect(frameOf(page).locator('#checkout-alert')).not.toBeEmpty();
    expect(await salesOf(tx.id)).toEqual([]);
  });

  test('3-D Secure failed in the widget’s frame: the frame says so, nothing paid; the next attempt completes it and pays', async ({ page, merchant }) => {
    const tx = await payable(merchant.origin, 'EW-3');
    await openWidget(page, merchant, tx.token, '/element-shop-3');
    await payWithElement(frameOf(page), '4000002760003184');
    await frameOf(page).getByRole('button', { name: 'Fail authentication' }).click();
    await expect(frameOf(page).locator('#checkout-alert')).toContainText('Your payment was declined. Try again');
    expect(await salesOf(tx.id)).toEqual([]);
    await payWithElement(frameOf(page), '4000002760003184');
    await frameOf(page).getByRole('button', { name: 'Complete authentication' }).click();
    await page.waitForURL(returnTo(`${merchant.origin}/return?order=EW-3`));
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', authentication: { status: 'authenticated', method: 'challenge' } }]);
  });
});

test.describe('JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  test('the same page offers Stripe Checkout by redirect: no field of Stripe’s, the pay button goes to Stripe’s page', async ({ page, merchant }) => {
    const tx = await payable(merchant.origin, 'E-4');
    await page.goto(tx.payment_url);
    await page.locator(`input[type="radio"][value="${STRIPE_CARD_ID}"]`).check();
    await page.locator('button[name="action"][value="pay"]').click();
    await page.waitForURL(new RegExp(`^${shop.stripe.url}/c/pay/cs_test_`));
    await expect(page.getByLabel('Card number (Stripe test double)')).toHaveCount(0);
  });
});
