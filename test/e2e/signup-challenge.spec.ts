import type { Page } from '@playwright/test';
import { CARDS, expect, type Merchant, returnTo, type Service, test } from './fixtures';
import { expectNoViolationsLightAndDark, fillCard, payButton } from './screen';

// The issuer's challenge on a subscription's hosted sign-up, in Chromium: the challenge
// cards run the same step as the save page (the dialog with JavaScript, a page of its own
// without), failing or leaving it keeps the sign-up open, completing it starts the
// subscription, also inside the widget's frame; axe finds nothing on the sign-up's
// challenge, in light and in dark.

async function subscription(service: Service, merchant: Merchant) {
  const plan = await service.api('POST', '/plan/', { name: 'Coffee club', amount: 9.99, currency: 'EUR', interval: 'month', trial_days: 14 });
  expect(plan.status).toBe(201);
  const res = await service.api('POST', '/subscription/', { plan: plan.body.id, return_url: `${merchant.origin}/welcome?s=S-2` });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; payment_url: string };
}

/** Fills the sign-up's card and subscribes. */
async function signUpWith(page: Page, number: string) {
  await fillCard(page, number);
  await payButton(page).click();
}

const answer = (page: Page, name: 'Complete' | 'Fail' | 'Back to the card') => page.getByRole('button', { name, exact: true });


const subscriptionOf = async (service: Service, id: string) => (await service.api('GET', `/subscription/${id}/`)).body;
const authorizationOf = async (service: Service, id: string) => (await service.api('GET', `/authorization/${id}/`)).body;

test.describe('the sign-up challenge with JavaScript', () => {
  test.describe.configure({ timeout: 60_000 });

  test('on a phone: the dialog; Fail and Back keep the sign-up open, Complete starts it', async ({ page, service, merchant, toShop }) => {
    await page.setViewportSize({ width: 360, height: 740 });
    const sub = await subscription(service, merchant);
    await page.goto(sub.payment_url);
    await signUpWith(page, CARDS.challenged);
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    await expect(dialog).toBeVisible();
    await expect(dialog).toContainText('Demo shop asks to save your card.');
    await expect(answer(page, 'Complete')).toBeFocused();
    await expectNoViolationsLightAndDark(page);
    await answer(page, 'Fail').click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByRole('alert')).toContainText('Your bank could not confirm it was you, so the card was not saved.');
    expect(await subscriptionOf(service, sub.id)).toMatchObject({ status: 'waiting', authorization: null });

    await signUpWith(page, CARDS.challenged);
    await answer(page, 'Back to the card').click();
    await expect(page.getByRole('alert')).toContainText('The card was not confirmed with your bank');
    expect((await subscriptionOf(service, sub.id)).status).toBe('waiting');

    await signUpWith(page, CARDS.challenged);
    await answer(page, 'Complete').click();
    await toShop(returnTo(`${merchant.origin}/welcome?s=S-2`, 'subscription'));
    const started = await subscriptionOf(service, sub.id);
    expect(started.status).toBe('trialing');
    expect(await authorizationOf(service, started.authorization)).toMatchObject({
      status: 'active',
      card: { last4: '3184' },
      authentication: { status: 'authenticated', method: 'challenge' },
    });
  });

  test('on a desktop: declined after the challenge leaves it open; a frictionless card then subscribes', async ({ page, service, merchant, toShop }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    const sub = await subscription(service, merchant);
    await page.goto(sub.payment_url);
    await signUpWith(page, CARDS.challengedThenDeclined);
    await answer(page, 'Complete').click();
    await expect(page.getByRole('alert')).toContainText('Your card was declined, so it was not saved.');
    expect((await subscriptionOf(service, sub.id)).status).toBe('waiting');

    await signUpWith(page, CARDS.frictionless);
    await toShop(returnTo(`${merchant.origin}/welcome?s=S-2`, 'subscription'));
    const started = await subscriptionOf(service, sub.id);
    expect(started.status).toBe('trialing');
    expect((await authorizationOf(service, started.authorization)).authentication).toEqual({ status: 'authenticated', method: 'frictionless' });
  });

  test('the full-page step (no script of its own): axe finds nothing, and its form completes the sign-up', async ({ page, service, merchant, toShop }) => {
    const sub = await subscription(service, merchant);
    await page.goto(sub.payment_url);
    await signUpWith(page, CARDS.challenged);
    await expect(page.getByRole('dialog', { name: 'Confirm it is you' })).toBeVisible();
    // The step the page takes without JavaScript, as the dialog's chunk failing to load would open it.
    await page.goto(`${sub.payment_url}challenge/`);
    await expect(page.getByRole('heading', { level: 1, name: 'Confirm it is you' })).toBeVisible();
    await expect(page.getByText('Demo shop asks to save your card.')).toBeVisible();
    await expectNoViolationsLightAndDark(page);
    await answer(page, 'Complete').click();
    await toShop(returnTo(`${merchant.origin}/welcome?s=S-2`, 'subscription'));
    expect((await subscriptionOf(service, sub.id)).status).toBe('trialing');
  });
});

test.describe('the sign-up challenge without JavaScript', () => {
  test.use({ javaScriptEnabled: false });
  test.describe.configure({ timeout: 60_000 });

  test('a page of its own: Fail sends the customer back to the sign-up, Complete to return_url', async ({ page, service, merchant }) => {
    const sub = await subscription(service, merchant);
    await page.goto(sub.payment_url);
    await signUpWith(page, CARDS.challenged);
    await expect(page).toHaveURL(/\/pay\/sub_[^/]+\/challenge\/$/);
    await expect(page).toHaveTitle('Confirm your card');
    await expect(page.getByRole('heading', { level: 1, name: 'Confirm it is you' })).toBeVisible();
    await answer(page, 'Fail').click();
    await expect(page).toHaveURL(/\/pay\/sub_[^/]+\/\?result=error\.saveAuthFailed$/);
    await expect(page.getByRole('alert')).toContainText('so the card was not saved');
    expect((await subscriptionOf(service, sub.id)).status).toBe('waiting');

    await signUpWith(page, CARDS.challenged);
    await answer(page, 'Complete').click();
    await page.waitForURL(returnTo(`${merchant.origin}/welcome?s=S-2`, 'subscription'));
    expect((await subscriptionOf(service, sub.id)).status).toBe('trialing');
  });
});

test('in the widget\'s frame: the challenge dialog inside the frame, then checkout:completed', async ({ page, service, merchant }) => {
  const sub = await subscription(service, merchant);
  const token = /\/pay\/([^/]+)\//.exec(sub.payment_url)![1]!;
  const shop = merchant.page(
    '/subscribe-challenge',
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><script>' +
      // Kept in sessionStorage: the widget moves the top window on to return_url.
      "document.addEventListener('checkout:completed', (e) => sessionStorage.setItem('completed', JSON.stringify(e.detail)));" +
      `</script><script src="${service.url}/widget.js" async></script></head>` +
      `<body><main><h1>Shop</h1><div data-checkout-token="${token}"></div></main></body></html>`,
  );
  await page.goto(shop);
  const frame = page.frameLocator('iframe[src*="/pay/"]');
  await frame.locator('input[autocomplete="cc-number"]').fill(CARDS.challenged);
  await frame.locator('input[autocomplete="cc-exp"]').fill('12/34');
  await frame.locator('input[autocomplete="cc-csc"]').fill('123');
  await frame.locator('input[autocomplete="cc-name"]').fill('Ada Lovelace');
  await frame.locator('button[name="action"][value="pay"]').click();
  const dialog = frame.getByRole('dialog', { name: 'Confirm it is you' });
  await expect(dialog).toBeVisible();
  await frame.getByRole('button', { name: 'Complete', exact: true }).click();
  await page.waitForURL(returnTo(`${merchant.origin}/welcome?s=S-2`, 'subscription'));
  const completed = JSON.parse((await page.evaluate(() => sessionStorage.getItem('completed'))) ?? 'null');
  expect(completed).toMatchObject({ type: 'checkout:completed', transaction_id: sub.id, status: 'D' });
  expect((await subscriptionOf(service, sub.id)).status).toBe('trialing');
});
