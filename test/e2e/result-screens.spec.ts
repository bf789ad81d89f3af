import type { Page } from '@playwright/test';
import { checkoutPost } from '../api/pay';
import { CARDS, expect, test, returnTo } from './fixtures';
import { cancelButton, expectAccessible, fillCard, numberInput, oneLine, payButton, PHONE, statusOf } from './screen';

// A way back that does not end the payment, a cancel that asks first, and results that
// lead back to the shop, with and without JavaScript.

const backLink = (page: Page) => page.getByRole('link', { name: 'Back to Demo shop' });

for (const javaScriptEnabled of [true, false]) {
  test.describe(javaScriptEnabled ? 'with JavaScript' : 'without JavaScript', () => {
    test.use({ javaScriptEnabled, viewport: PHONE });

    test('back to the shop leaves the payment open, and it can still be paid', async ({ page, service, merchant, toShop }) => {
      const tx = await service.createTransaction(oneLine(merchant));
      await page.goto(tx.payment_url);
      await expect(backLink(page)).toHaveAttribute('href', `${merchant.origin}/cancel?order=A-2001`);
      await backLink(page).click();
      await page.waitForURL(`${merchant.origin}/cancel?order=A-2001`);
      expect(await statusOf(service, tx.id)).toBe('N');
      await page.goto(tx.payment_url);
      await fillCard(page, CARDS.approved);
      await payButton(page).click();
      await toShop(returnTo(`${merchant.origin}/return?order=A-2001`));
      expect(await statusOf(service, tx.id)).toBe('D');
    });

    test('cancelling takes two steps; "keep paying" goes back to the form', async ({ page, service, merchant, toShop }) => {
      const tx = await service.createTransaction(oneLine(merchant));
      await page.goto(tx.payment_url);
      await cancelButton(page).click();
      const question = page.getByRole('heading', { name: 'Cancel this payment?' });
      await expect(question).toBeVisible();
      // The card fields are gone, so Enter cannot confirm by accident.
      await expect(numberInput(page)).toHaveCount(0);
      expect(await statusOf(service, tx.id)).toBe('N');
      await expectAccessible(page, javaScriptEnabled);
      await page.getByRole('link', { name: 'No, keep paying' }).click();
      await expect(payButton(page)).toBeVisible();
      expect(await statusOf(service, tx.id)).toBe('N');

      await cancelButton(page).click();
      await expect(question).toBeVisible();
      await cancelButton(page).click();
      await toShop(returnTo(`${merchant.origin}/cancel?order=A-2001`));
      expect(await statusOf(service, tx.id)).toBe('C');
    });

    test('the cancelled screen links back to the shop', async ({ page, service, merchant }) => {
      const tx = await service.createTransaction(oneLine(merchant, { cancel_url: undefined }));
      await page.goto(tx.payment_url);
      await cancelButton(page).click();
      await cancelButton(page).click();
      await expect(page.getByRole('heading', { name: 'Payment cancelled' })).toBeVisible();
      // No cancel_url: the home page of the shop's return_url site.
      await expect(backLink(page)).toHaveAttribute('href', `${merchant.origin}/`);
      await expectAccessible(page, javaScriptEnabled);
    });

    test('the paid screen: short reference, amount, card, link back, printable', async ({ page, service, merchant }) => {
      const tx = await service.createTransaction(oneLine(merchant));
      // Paid as its screen pays (the page's JSON post, the gateway it shows chosen), not
      // drawn in Chromium: the subject is the link opened again (checkout.spec.ts pays on
      // the screen, with and without JavaScript, and follows it back to the shop).
      const paid = await checkoutPost(service.url, tx.token, ({ selectedGateway }) => ({
        action: 'pay',
        gateway: selectedGateway,
        fields: { card_number: CARDS.approved, card_expiry: '12/34', card_cvc: '123', card_name: 'Ada Lovelace' },
      }));
      expect(paid.status).toBe(200);
      expect(await paid.json()).toMatchObject({ outcome: 'redirect', kind: 'completed' });
      expect(await statusOf(service, tx.id)).toBe('D');
      // Opening the link again shows the result, not "You are paying".
      await page.goto(tx.payment_url);
      await expect(page.getByRole('heading', { name: 'Payment complete' })).toBeVisible();
      const main = page.locator('main');
      await expect(main).not.toContainText('You are paying');
      await expect(main).toContainText('You paid');
      await expect(page.locator('.receipt__ref')).toHaveText(/^[0-9A-F]{4}-[0-9A-F]{4}$/);
      await expect(main).toContainText('Visa ending in 4242');
      await expect(main).toContainText('Amount paid€113.68');
      await expect(backLink(page)).toHaveAttribute('href', returnTo(`${merchant.origin}/return?order=A-2001`));
      const print = page.getByRole('button', { name: 'Print receipt' });
      if (javaScriptEnabled) {
        await expect(print).toBeVisible();
        await page.emulateMedia({ media: 'print' });
        await expect(backLink(page)).toBeHidden();
        await expect(page.locator('.receipt')).toBeVisible();
        await page.emulateMedia({ media: 'screen' });
      } else {
        // Without a script the button could do nothing: the browser's own menu prints.
        await expect(print).toHaveCount(0);
      }
      await expectAccessible(page, javaScriptEnabled);
    });
  });
}

test('the expired screen links back to the shop', async ({ page, service, merchant }) => {
  const tx = await service.createTransaction(oneLine(merchant, { expired_date: new Date(Date.now() + 3000).toISOString() }));
  await page.goto(tx.payment_url);
  await expect(page.getByRole('heading', { name: /expired/i })).toBeVisible({ timeout: 15_000 });
  await expect(backLink(page)).toHaveAttribute('href', `${merchant.origin}/cancel?order=A-2001`);
  await expectAccessible(page, true);
});

test('every page has an icon: /favicon.ico and the linked /favicon.svg answer', async ({ request, service }) => {
  for (const path of ['/favicon.ico', '/favicon.svg']) {
    const res = await request.get(`${service.url}${path}`);
    expect(res.status(), path).toBe(200);
    expect(res.headers()['content-type']).toContain('image/svg+xml');
  }
});
