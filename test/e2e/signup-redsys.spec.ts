import { REDSYS_BIZUM_ID, REDSYS_CARD_ID } from '../../server/payments/redsys/gateway';
import { expect, returnTo, test } from './fixtures';
import { useRedsysShop } from './redsys-shop';
import { expectNoViolationsLightAndDark, expectNoViolationsWithoutScript } from './screen';

// A subscription's sign-up with Redsys in a real browser on a phone, with JavaScript on and
// off (docs/subscriptions.md "The hosted sign-up"): the demo sandbox connects the Redsys test
// double (REDSYS_URL) with Redsys's published test terminal; the sign-up page offers
// Redsys's card (not Bizum, which saves no card) and axe finds nothing on it; our form
// posts the customer to the double's page, where the card is saved (a validation of 0.00);
// the double's signed notification saves it and starts the subscription, and the customer
// lands on the shop's return_url with the subscription active on that card. Without
// JavaScript every step is a form: our challenge step's page waits for the customer's click
// on its button to post them on to Redsys, and axe finds nothing on it either.

const shop = useRedsysShop();

test('on a phone: signs up with Redsys, the email on our page, the card on Redsys’s, back to the shop with the subscription active', async ({ page, merchant }) => {
  test.slow();
  await page.setViewportSize({ width: 360, height: 740 });
  const plan = await shop.service.api('POST', '/plan/', { name: 'Coffee club', amount: 9.99, currency: 'EUR', interval: 'month' });
  expect(plan.status).toBe(201);
  const sub = await shop.service.api('POST', '/subscription/', { plan: plan.body.id, return_url: `${merchant.origin}/welcome?s=R-1` });
  expect(sub.status, JSON.stringify(sub.body)).toBe(201);

  await page.goto(sub.body.payment_url);
  await expect(page.locator(`#gateway-${REDSYS_BIZUM_ID}`)).toHaveCount(0);
  await page.locator(`#gateway-${REDSYS_CARD_ID}`).check();
  // Redsys takes no card fields here: only the sign-up's own email.
  await expect(page.locator('input[autocomplete="cc-number"]')).toHaveCount(0);
  await page.getByLabel('Email for the confirmation (optional)').fill('ada@example.com');
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  await expectNoViolationsLightAndDark(page);

  await page.locator('button[name="action"][value="pay"]').click();
  // Our challenge step's form posts itself to Redsys's page.
  await page.waitForURL(`${shop.redsys.url}/sis/realizarPago`);
  await expect(page.getByRole('heading', { name: 'Card payment' })).toBeVisible();
  await expect(page.locator('[data-amount]')).toHaveText('0.00');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForURL(returnTo(`${merchant.origin}/welcome?s=R-1`, 'subscription'));
  expect(new URL(page.url()).searchParams.get('subscription_id')).toBe(sub.body.id);
  expect(shop.redsys.notifications.at(-1)).toMatchObject({ status: 204 });

  const after = (await shop.service.api('GET', `/subscription/${sub.body.id}/`)).body;
  expect(after).toMatchObject({ status: 'active', payment_url: null, customer_email: 'ada@example.com' });
  const authorization = (await shop.service.api('GET', `/authorization/${after.authorization}/`)).body;
  expect(authorization).toMatchObject({ status: 'active', gateway: REDSYS_CARD_ID });
});

test.describe('JavaScript off', () => {
  test.use({ javaScriptEnabled: false });

  /** Within the phone's 360 px, and axe finding nothing, in light and dark. */
  async function expectNarrowAndAccessible(page: import('@playwright/test').Page) {
    const width = await page.locator('html').evaluate((html) => html.scrollWidth);
    expect(width).toBeLessThanOrEqual(360);
    await expectNoViolationsWithoutScript(page);
  }

  test('on a phone: the same sign-up by forms alone, our page’s button posting the customer on to Redsys’s', async ({ page, merchant }) => {
    test.slow();
    await page.setViewportSize({ width: 360, height: 740 });
    const plan = await shop.service.api('POST', '/plan/', { name: 'Tea club', amount: 9.99, currency: 'EUR', interval: 'month' });
    expect(plan.status).toBe(201);
    const sub = await shop.service.api('POST', '/subscription/', { plan: plan.body.id, return_url: `${merchant.origin}/welcome?s=R-2` });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);

    await page.goto(sub.body.payment_url);
    await expect(page.locator(`#gateway-${REDSYS_BIZUM_ID}`)).toHaveCount(0);
    await page.locator(`#gateway-${REDSYS_CARD_ID}`).check();
    await page.getByLabel('Email for the confirmation (optional)').fill('grace@example.com');
    await expectNarrowAndAccessible(page);

    await page.locator('button[name="action"][value="pay"]').click();
    // Without JavaScript our challenge step's form waits for the customer's click.
    const challenge = `${sub.body.payment_url}challenge/`;
    await page.waitForURL(challenge);
    const onward = page.locator('#redirect button[type="submit"]');
    await expect(onward).toBeVisible();
    await expectNarrowAndAccessible(page);
    // The form did not post itself meanwhile: still ours, waiting for the click.
    expect(page.url()).toBe(challenge);
    await onward.click();
    await page.waitForURL(`${shop.redsys.url}/sis/realizarPago`);
    await expect(page.locator('[data-amount]')).toHaveText('0.00');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(returnTo(`${merchant.origin}/welcome?s=R-2`, 'subscription'));
    expect(new URL(page.url()).searchParams.get('subscription_id')).toBe(sub.body.id);

    const after = (await shop.service.api('GET', `/subscription/${sub.body.id}/`)).body;
    expect(after).toMatchObject({ status: 'active', payment_url: null, customer_email: 'grace@example.com' });
    expect((await shop.service.api('GET', `/authorization/${after.authorization}/`)).body).toMatchObject({ status: 'active', gateway: REDSYS_CARD_ID });
  });
});
