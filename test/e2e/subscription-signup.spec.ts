import type { Page } from '@playwright/test';
import { axeViolations } from './axe';
import { CARDS, expect, type Merchant, returnTo, type Service, test } from './fixtures';

// A subscription's hosted sign-up in Chromium: the plan's terms in four languages with
// axe finding nothing, the card stored and the subscription started, with and without
// JavaScript, and inside the widget's frame at the same payment_url.

async function subscription(service: Service, merchant: Merchant, over: Record<string, unknown> = {}, plan: Record<string, unknown> = {}) {
  const created = await service.api('POST', '/plan/', { name: 'Coffee club', amount: 9.99, currency: 'EUR', interval: 'month', trial_days: 14, ...plan });
  expect(created.status).toBe(201);
  const res = await service.api('POST', '/subscription/', {
    plan: created.body.id,
    subscription_id: 'S-1',
    return_url: `${merchant.origin}/welcome?s=S-1`,
    cancel_url: `${merchant.origin}/maybe-later?s=S-1`,
    ...over,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body.payment_url).toMatch(/\/pay\/sub_/);
  return res.body as { id: string; token?: string; payment_url: string };
}

async function fillCard(scope: Pick<Page, 'locator'>, number: string = CARDS.approved) {
  await scope.locator('input[autocomplete="cc-number"]').fill(number);
  await scope.locator('input[autocomplete="cc-exp"]').fill('12/34');
  await scope.locator('input[autocomplete="cc-csc"]').fill('123');
  await scope.locator('input[autocomplete="cc-name"]').fill('Ada Lovelace');
}

const subscribeButton = (scope: Pick<Page, 'locator'>) => scope.locator('button[name="action"][value="pay"]');

async function expectNoAxeViolations(page: Page) {
  const violations = await axeViolations(page);
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
}

const status = async (service: Service, id: string) => (await service.api('GET', `/subscription/${id}/`)).body;

test.describe('subscription sign-up in four languages', () => {
  // Two axe runs and a sign-up each, on a shared two-core machine.
  test.describe.configure({ timeout: 60_000 });
  const cases = [
    { language: 'en', email: 'Email for the confirmation (optional)', lang: 'en', price: '€9.99 per month', trial: '14-day free trial', button: 'Subscribe', done: 'Subscription confirmed', today: '€0.00', method: 'Card', consent: /^By subscribing you authorise Demo shop to charge you €9\.99 every month from \w+ \d+, \d{4} until you cancel\.$/ },
    { language: 'es', email: 'Correo electrónico para la confirmación (opcional)', lang: 'es', price: '9,99 € al mes', trial: 'Prueba gratuita de 14 días', button: 'Suscribirme', done: 'Suscripción confirmada', today: '0,00 €', method: 'Tarjeta', consent: /^Al suscribirte autorizas a Demo shop a cobrarte 9,99 € cada mes a partir del \d+ de \w+ de \d{4} hasta que canceles\.$/ },
    { language: 'fr', email: 'E-mail pour la confirmation (facultatif)', lang: 'fr', price: '9,99 € par mois', trial: 'Essai gratuit de 14 jours', button: 'M’abonner', done: 'Abonnement confirmé', today: '0,00 €', method: 'Carte bancaire', consent: /^En vous abonnant, vous autorisez Demo shop à vous débiter 9,99 € chaque mois à partir du \d+ \S+ \d{4} jusqu’à résiliation\.$/ },
    { language: 'au', email: 'Email for the confirmation (optional)', lang: 'en-AU', price: 'EUR 9.99 per month', trial: '14-day free trial', button: 'Subscribe', done: 'Subscription confirmed', today: 'EUR 0.00', method: 'Card', consent: /^By subscribing you authorise Demo shop to charge you EUR 9\.99 every month from \d+ \w+ \d{4} until you cancel\.$/ },
  ];
  for (const c of cases) {
    test(`${c.language}: shows the plan, takes the card, starts the trial`, async ({ page, service, merchant }) => {
      const sub = await subscription(service, merchant, { language: c.language, return_url: undefined });
      await page.goto(sub.payment_url);
      await expect(page.locator('html')).toHaveAttribute('lang', c.lang);
      await expect(page.getByText(c.price, { exact: true })).toBeVisible();
      await expect(page.getByText(c.trial)).toBeVisible();
      await expect(page.getByText('Coffee club')).toBeVisible();
      // A free trial: nothing is due today, and the consent by the button states the terms.
      await expect(page.locator('.merchant__total')).toContainText(c.today);
      // Money and dates are formatted with no-break spaces.
      expect((await page.locator('.consent').textContent())!.replace(/\s/g, ' ')).toMatch(c.consent);
      await expect(page.locator('.gateway__name')).toHaveText(c.method);
      await expectNoAxeViolations(page);

      // The optional email for the confirmation and the trial reminder, labelled in the page's language.
      const email = page.getByLabel(c.email);
      await expect(email).toHaveAttribute('type', 'email');
      await email.fill('not-an-address');
      await fillCard(page);
      await expect(subscribeButton(page)).toHaveText(c.button);
      await subscribeButton(page).click();
      await expect(email).toHaveAttribute('aria-invalid', 'true');
      expect((await status(service, sub.id)).status).toBe('waiting');
      await email.fill(`ada.${c.language}@example.com`);
      await fillCard(page);
      await subscribeButton(page).click();
      await expect(page.getByRole('heading', { name: c.done })).toBeVisible();
      await expectNoAxeViolations(page);
      const after = await status(service, sub.id);
      expect(after).toMatchObject({ status: 'trialing', payment_url: null, customer_email: `ada.${c.language}@example.com` });
      expect(after.authorization).toMatch(/^[0-9a-f-]{36}$/);
      // The page is done: opened again, it confirms rather than asking again.
      await page.goto(sub.payment_url);
      await expect(page.getByRole('heading', { name: c.done })).toBeVisible();
    });
  }
});

test('a declined card is shown as declined and starts nothing; a working card then subscribes, confirms, and goes to return_url signed', async ({ page, service, merchant, toShop }) => {
  const sub = await subscription(service, merchant, {}, { trial_days: 0 });
  await page.goto(sub.payment_url);
  await expect(page.getByText('First charge on')).toBeVisible();
  await fillCard(page, CARDS.declined);
  await subscribeButton(page).click();
  await expect(page.getByRole('alert')).toContainText('declined');
  expect((await status(service, sub.id)).status).toBe('waiting');
  await fillCard(page);
  await subscribeButton(page).click();
  // As the paid screen does: "Subscription confirmed" first, then the shop.
  await expect(page.getByRole('heading', { name: 'Subscription confirmed' })).toBeVisible();
  await toShop(returnTo(`${merchant.origin}/welcome?s=S-1`, 'subscription'));
  expect(new URL(page.url()).searchParams.get('subscription_id')).toBe(sub.id);
  expect((await status(service, sub.id)).status).toBe('active');
});

test('on a phone the terms come before the card form, and cancelling a sign-up keeps its link working', async ({ page, service, merchant }) => {
  await page.setViewportSize({ width: 360, height: 740 });
  // Without return and cancel URLs, so the page itself shows each result.
  const sub = await subscription(service, merchant, { return_url: undefined, cancel_url: undefined });
  await page.goto(sub.payment_url);
  const top = async (selector: string) => (await page.locator(selector).first().boundingBox())!.y;
  expect(await top('.terms')).toBeLessThan(await top('input[autocomplete="cc-number"]'));
  expect(await top('.consent')).toBeLessThan(await top('button[name="action"][value="pay"]'));
  // The page is no wider than the phone.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

  await page.getByRole('button', { name: 'Cancel sign-up' }).click();
  await expect(page.getByRole('heading', { name: 'Cancel this sign-up?' })).toBeFocused();
  await expect(page.getByText('This link keeps working if you change your mind.')).toBeVisible();
  await page.getByRole('button', { name: 'Yes, cancel the sign-up' }).click();
  await expect(page.getByRole('heading', { name: 'Sign-up cancelled' })).toBeVisible();
  expect((await status(service, sub.id)).status).toBe('waiting');
  // As the page said: the same link still signs up.
  await page.goto(sub.payment_url);
  await fillCard(page);
  await subscribeButton(page).click();
  await expect(page.getByRole('heading', { name: 'Subscription confirmed' })).toBeVisible();
  await expect(page.locator('.merchant__label')).toHaveText('You subscribed to');
  await expect(page.locator('.merchant__total')).toHaveCount(0);
  expect((await status(service, sub.id)).status).toBe('trialing');
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });
  test('the form posts and the server redirects to return_url', async ({ page, service, merchant }) => {
    const sub = await subscription(service, merchant, { language: 'es' });
    await page.goto(sub.payment_url);
    await expect(page.getByText('9,99 € al mes', { exact: true })).toBeVisible();
    await fillCard(page);
    await subscribeButton(page).click();
    await page.waitForURL(returnTo(`${merchant.origin}/welcome?s=S-1`, 'subscription'));
    expect((await status(service, sub.id)).status).toBe('trialing');
  });
});

test('the widget embeds the same payment_url: subscribing in the frame reports checkout:completed', async ({ page, service, merchant }) => {
  const sub = await subscription(service, merchant);
  const token = /\/pay\/([^/]+)\//.exec(sub.payment_url)![1]!;
  const shop = merchant.page(
    '/subscribe-shop',
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><script>' +
      // Kept in sessionStorage: the widget moves the top window on to return_url.
      "document.addEventListener('checkout:completed', (e) => sessionStorage.setItem('completed', JSON.stringify(e.detail)));" +
      `</script><script src="${service.url}/widget.js" async></script></head>` +
      `<body><main><h1>Shop</h1><div data-checkout-token="${token}"></div></main></body></html>`,
  );
  await page.goto(shop);
  const frame = page.frameLocator('iframe[src*="/pay/"]');
  await expect(frame.getByText('€9.99 per month', { exact: true })).toBeVisible();
  await fillCard(frame);
  await subscribeButton(frame).click();
  const back = returnTo(`${merchant.origin}/welcome?s=S-1`, 'subscription');
  await page.waitForURL(back);
  const completed = JSON.parse((await page.evaluate(() => sessionStorage.getItem('completed'))) ?? 'null');
  expect(completed).toMatchObject({ type: 'checkout:completed', transaction_id: sub.id, status: 'D', order_id: 'S-1', redirect: expect.stringMatching(back) });
  expect((await status(service, sub.id)).status).toBe('trialing');
});
