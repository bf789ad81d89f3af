import type { FrameLocator, Page } from '@playwright/test';
import { CARDS, expect, type Service, test } from './fixtures';
import { expectNoViolationsLightAndDark } from './screen';

// Saving a card without touching it, in Chromium: POST /v1/authorization/ without a card,
// then the hosted page at its `url` for each sandbox card's outcome (saved, declined,
// challenged and completed, challenged and failed), with JavaScript (the challenge as a
// dialog) and without it (a page of its own), each begun on a 360 px phone or a desktop and
// checked again on the other, inside the widget once; axe finds nothing on the save page, its challenge and the sign-up page,
// in light and in dark.

const SANDBOX_CARD = '0190f5a0-0000-7000-8000-000000000001';
const VIEWPORTS = { phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 800 } };

type Scope = Page | FrameLocator;

async function saveRequest(service: Service, over: Record<string, unknown> = {}) {
  const res = await service.api('POST', '/authorization/', { gateway: SANDBOX_CARD, ...over });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  expect(res.body).toMatchObject({ status: 'pending', url: expect.stringMatching(/\/pay\/sav_/) });
  return res.body as { id: string; token: string; url: string };
}

async function saveWith(scope: Scope, card: string) {
  await scope.locator('input[autocomplete="cc-number"]').fill(card);
  await scope.locator('input[autocomplete="cc-exp"]').fill('12/34');
  await scope.locator('input[autocomplete="cc-csc"]').fill('123');
  await scope.locator('input[autocomplete="cc-name"]').fill('Ada Lovelace');
  await scope.locator('button[name="action"][value="pay"]').click();
}

const answerButton = (scope: Scope, name: 'Complete' | 'Fail' | 'Back to the card') => scope.getByRole('button', { name, exact: true });


const statusOf = async (service: Service, id: string) => (await service.api('GET', `/authorization/${id}/`)).body;

// Each flow once: begun on one size and, from a screen on, checked again on the other (the
// layout and axe checks at both); half begin on the phone, half on the desktop.
type Size = keyof typeof VIEWPORTS;
const resize = (page: Page, size: Size) => page.setViewportSize(VIEWPORTS[size]);
const BOTH: Size[] = ['phone', 'desktop'];

test.describe('saving a card with JavaScript', () => {
  test.describe.configure({ timeout: 60_000 });

  test('a plain card: saved, and the customer goes back to return_url (phone → desktop)', async ({ page, service, merchant }) => {
    await resize(page, 'phone');
    const saved = await saveRequest(service, { return_url: `${merchant.origin}/saved?c=1` });
    await page.goto(saved.url);
    await expect(page).toHaveTitle('Save a card for Demo shop');
    await expect(page.locator('.merchant__label')).toHaveText('You are saving a card for');
    await expect(page.locator('.merchant__total')).toHaveCount(0);
    await expect(page.locator('button[name="action"][value="pay"]')).toHaveText('Save card');
    for (const size of BOTH) {
      await resize(page, size);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(VIEWPORTS[size].width);
      await expectNoViolationsLightAndDark(page);
    }
    await saveWith(page, CARDS.approved);
    await page.waitForURL(`${merchant.origin}/saved?c=1`);
    expect(await statusOf(service, saved.id)).toMatchObject({ status: 'active', card: { last4: '4242' } });
  });

  test('a declined card, then a challenge card: the dialog, Fail keeps it open, Complete saves it (desktop → phone)', async ({ page, service }) => {
    await resize(page, 'desktop');
    const saved = await saveRequest(service);
    await page.goto(saved.url);
    await saveWith(page, CARDS.declined);
    await expect(page.getByRole('alert')).toContainText('Your card was declined, so it was not saved.');
    expect((await statusOf(service, saved.id)).status).toBe('pending');

    await saveWith(page, CARDS.challenged);
    const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
    for (const size of [...BOTH].reverse()) {
      await resize(page, size);
      await expect(dialog).toBeVisible();
      await expect(dialog).toContainText('Demo shop asks to save your card.');
      await expectNoViolationsLightAndDark(page);
    }
    await answerButton(page, 'Fail').click();
    await expect(page.getByRole('alert')).toContainText('so the card was not saved');
    expect((await statusOf(service, saved.id)).status).toBe('pending');

    await saveWith(page, CARDS.challenged);
    await expect(dialog).toBeVisible();
    await answerButton(page, 'Complete').click();
    for (const size of BOTH) {
      await resize(page, size);
      await expect(page.getByRole('heading', { name: 'Card saved' })).toBeVisible();
      await expectNoViolationsLightAndDark(page);
    }
    expect(await statusOf(service, saved.id)).toMatchObject({ status: 'active', card: { last4: '3184' } });
  });

  test('4000 0084 0000 1629: the issuer declines even after a completed challenge (desktop → phone)', async ({ page, service }) => {
    // Complete pressed on the desktop here, on the phone by the case above.
    await resize(page, 'desktop');
    const saved = await saveRequest(service);
    await page.goto(saved.url);
    await saveWith(page, CARDS.challengedThenDeclined);
    await answerButton(page, 'Complete').click();
    for (const size of [...BOTH].reverse()) {
      await resize(page, size);
      await expect(page.getByRole('alert')).toContainText('Your card was declined');
    }
    expect((await statusOf(service, saved.id)).status).toBe('pending');
  });
});

test.describe('saving a card without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the challenge is a page of its own: Fail comes back to the form, Complete goes to return_url (desktop → phone)', async ({ page, service, merchant }) => {
    await resize(page, 'desktop');
    const saved = await saveRequest(service, { return_url: `${merchant.origin}/saved?c=2` });
    await page.goto(saved.url);
    await saveWith(page, CARDS.challenged);
    await expect(page).toHaveURL(new RegExp(`/pay/${saved.token}/challenge/$`));
    await expect(page).toHaveTitle('Confirm your card');
    await answerButton(page, 'Fail').click();
    for (const size of [...BOTH].reverse()) {
      await resize(page, size);
      await expect(page.getByRole('alert')).toContainText('so the card was not saved');
    }
    await saveWith(page, CARDS.challenged);
    await answerButton(page, 'Complete').click();
    await page.waitForURL(`${merchant.origin}/saved?c=2`);
    expect((await statusOf(service, saved.id)).status).toBe('active');
  });
});

test('a raw card that needs a challenge: its url runs the challenge, and axe finds nothing on that page', async ({ page, service }) => {
  const res = await service.api('POST', '/authorization/', { gateway: SANDBOX_CARD, card: { number: CARDS.challenged, expiry: '12/34', cvc: '123', name: 'Ada' } });
  expect(res.body).toMatchObject({ status: 'requires_action', url: expect.stringMatching(/\/pay\/sav_/) });
  await page.setViewportSize(VIEWPORTS.phone);
  await page.goto(res.body.url);
  await expect(page.getByRole('heading', { name: 'Confirm it is you' })).toBeVisible();
  await expectNoViolationsLightAndDark(page);
  await answerButton(page, 'Complete').click();
  await expect(page.getByRole('heading', { name: 'Card saved' })).toBeVisible();
  expect((await statusOf(service, res.body.id)).status).toBe('active');
});

test('the sign-up page: axe finds nothing in light and dark, on a phone', async ({ page, service, merchant }) => {
  const plan = await service.api('POST', '/plan/', { name: 'Coffee club', amount: 9.99, currency: 'EUR', interval: 'month' });
  const sub = await service.api('POST', '/subscription/', { plan: plan.body.id, subscription_id: 'S-9', return_url: `${merchant.origin}/welcome` });
  await page.setViewportSize(VIEWPORTS.phone);
  await page.goto(sub.body.payment_url);
  await expect(page.getByText('Coffee club')).toBeVisible();
  await expectNoViolationsLightAndDark(page);
});

test('the widget embeds the save page: saving in the frame reports checkout:completed', async ({ page, service, merchant }) => {
  const saved = await saveRequest(service, { return_url: `${merchant.origin}/saved?c=3` });
  const shop = merchant.page(
    '/save-shop',
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><script>' +
      // Kept in sessionStorage: the widget moves the top window on to return_url.
      "document.addEventListener('checkout:completed', (e) => sessionStorage.setItem('completed', JSON.stringify(e.detail)));" +
      `</script><script src="${service.url}/widget.js" async></script></head>` +
      `<body><main><h1>Shop</h1><div data-checkout-token="${saved.token}"></div></main></body></html>`,
  );
  await page.goto(shop);
  const frame = page.frameLocator('iframe[src*="/pay/"]');
  await expect(frame.locator('button[name="action"][value="pay"]')).toHaveText('Save card');
  await saveWith(frame, CARDS.challenged);
  await answerButton(frame, 'Complete').click();
  await page.waitForURL(`${merchant.origin}/saved?c=3`);
  const completed = JSON.parse((await page.evaluate(() => sessionStorage.getItem('completed'))) ?? 'null');
  expect(completed).toMatchObject({ type: 'checkout:completed', transaction_id: saved.id, redirect: `${merchant.origin}/saved?c=3` });
  expect((await statusOf(service, saved.id)).status).toBe('active');
});
