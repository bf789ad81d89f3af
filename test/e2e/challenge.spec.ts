import type { FrameLocator, Page } from '@playwright/test';
import { CARDS, expect, type Merchant, test, returnTo } from './fixtures';
import { expectNoViolationsLightAndDark, oneLine, statusOf } from './screen';

// The issuer's challenge (3-D Secure-like), for each sandbox card's outcome: in the page
// with JavaScript (a dialog, loaded only then), without it (a page of its own and back),
// and inside the widget; on a 360 px phone and on a desktop. The dialog's focus and axe
// checks run at each size; every other flow runs once, starting at one size and going on
// at the other (half start on the phone, half on the desktop), its screens checked at both.

const VIEWPORTS = { phone: { width: 360, height: 740 }, desktop: { width: 1280, height: 800 } };
type Size = keyof typeof VIEWPORTS;
const PHONE_FIRST: [Size, Size] = ['phone', 'desktop'];
const DESKTOP_FIRST: [Size, Size] = ['desktop', 'phone'];
const resize = (page: Page, size: Size) => page.setViewportSize(VIEWPORTS[size]);

type Scope = Page | FrameLocator;

async function payWith(scope: Scope, card: string) {
  await scope.locator('input[autocomplete="cc-number"]').fill(card);
  await scope.locator('input[autocomplete="cc-exp"]').fill('12/34');
  await scope.locator('input[autocomplete="cc-csc"]').fill('123');
  await scope.locator('input[autocomplete="cc-name"]').fill('Ada Lovelace');
  await scope.locator('button[name="action"][value="pay"]').click();
}

const answerButton = (scope: Scope, name: 'Complete' | 'Fail' | 'Back to the payment') => scope.getByRole('button', { name, exact: true });


const order = (merchant: Merchant) => oneLine(merchant, { order_id: 'C-1', return_url: `${merchant.origin}/return?order=C-1` });

for (const [size, viewport] of Object.entries(VIEWPORTS)) {
  test.describe(`the challenge in the page with JavaScript, ${size}`, () => {
    test.use({ viewport });

    test('4000 0027 6000 3184: a dialog with focus kept in it; Complete pays and returns to the shop', async ({ page, service, merchant, toShop }) => {
      const chunks: string[] = [];
      page.on('request', (request) => {
        if (request.url().includes('challenge-dialog')) chunks.push(request.url());
      });
      const tx = await service.createTransaction(order(merchant));
      await page.goto(tx.payment_url);
      await expect(page.locator('button[name="action"][value="pay"]')).toBeEnabled();
      expect(chunks).toEqual([]);
      await payWith(page, CARDS.challenged);

      const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
      await expect(dialog).toBeVisible();
      await expect(dialog).toContainText('Your bank wants to confirm it is you');
      expect(chunks).toHaveLength(1);
      await expect(answerButton(page, 'Complete')).toBeFocused();
      // Focus stays in the dialog: Tab from the last answer goes round to the first, Shift+Tab back.
      for (const key of ['Tab', 'Tab', 'Tab', 'Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab', 'Shift+Tab']) {
        await page.keyboard.press(key);
        expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true);
      }
      await page.keyboard.press('Tab');
      await expect(answerButton(page, 'Fail')).toBeFocused();
      await expectNoViolationsLightAndDark(page);
      expect(await statusOf(service, tx.id)).toBe('N');

      await answerButton(page, 'Complete').click();
      await expect(dialog).toBeHidden();
      await toShop(returnTo(`${merchant.origin}/return?order=C-1`));
      expect(await statusOf(service, tx.id)).toBe('D');
      const sales = (await service.api('GET', `/sale/?transaction_id=${tx.id}`)).body.results;
      expect(sales[0].authentication).toEqual({ status: 'authenticated', method: 'challenge' });
    });
  });
}

test.describe('the challenge in the page with JavaScript', () => {
  test(`Fail: the dialog closes, the card field says why, the payment stays open (${PHONE_FIRST.join(' → ')})`, async ({ page, service, merchant, toShop }) => {
    await resize(page, PHONE_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    await page.goto(tx.payment_url);
    await payWith(page, CARDS.challenged);
    await answerButton(page, 'Fail').click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    for (const size of PHONE_FIRST) {
      await resize(page, size);
      await expect(page.getByRole('alert')).toContainText('could not confirm it was you');
    }
    expect(await statusOf(service, tx.id)).toBe('N');
    // Another card still pays.
    await payWith(page, CARDS.approved);
    await toShop(returnTo(`${merchant.origin}/return?order=C-1`));
  });

  test(`Escape leaves the challenge: nothing charged, the payment stays open (${DESKTOP_FIRST.join(' → ')})`, async ({ page, service, merchant }) => {
    await resize(page, DESKTOP_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    await page.goto(tx.payment_url);
    await payWith(page, CARDS.challenged);
    await expect(page.getByRole('dialog')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('dialog')).toHaveCount(0);
    for (const size of DESKTOP_FIRST) {
      await resize(page, size);
      await expect(page.getByRole('alert')).toContainText('was not confirmed with your bank');
    }
    expect(await statusOf(service, tx.id)).toBe('N');
  });

  test(`4000 0084 0000 1629: challenged, then declined by the issuer (${PHONE_FIRST.join(' → ')})`, async ({ page, service, merchant }) => {
    await resize(page, PHONE_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    await page.goto(tx.payment_url);
    await payWith(page, CARDS.challengedThenDeclined);
    await answerButton(page, 'Complete').click();
    for (const size of PHONE_FIRST) {
      await resize(page, size);
      await expect(page.getByRole('alert')).toContainText(/declined/i);
    }
    expect(await statusOf(service, tx.id)).toBe('N');
  });

  test(`4000 0000 0000 3055: authenticated without a challenge (${DESKTOP_FIRST.join(' → ')})`, async ({ page, service, merchant, toShop }) => {
    await resize(page, DESKTOP_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    await page.goto(tx.payment_url);
    await expect(page.locator('button[name="action"][value="pay"]')).toBeVisible();
    await resize(page, DESKTOP_FIRST[1]);
    await payWith(page, CARDS.frictionless);
    await toShop(returnTo(`${merchant.origin}/return?order=C-1`));
    const sales = (await service.api('GET', `/sale/?transaction_id=${tx.id}`)).body.results;
    expect(sales[0].authentication).toEqual({ status: 'authenticated', method: 'frictionless' });
  });
});

test.describe('the challenge without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test(`4000 0027 6000 3184: a page of its own; Complete returns to the shop (${PHONE_FIRST.join(' → ')})`, async ({ page, service, merchant, toShop }) => {
    await resize(page, PHONE_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    await page.goto(tx.payment_url);
    await payWith(page, CARDS.challenged);
    await expect(page).toHaveURL(/\/challenge\/[0-9a-f-]{36}\/$/);
    for (const size of PHONE_FIRST) {
      await resize(page, size);
      await expect(page.getByRole('heading', { level: 1, name: 'Confirm it is you' })).toBeVisible();
    }
    await answerButton(page, 'Complete').click();
    await toShop(returnTo(`${merchant.origin}/return?order=C-1`));
    expect(await statusOf(service, tx.id)).toBe('D');
  });

  test(`Fail, and Back to the payment: back on the payment page, which says why and stays open (${DESKTOP_FIRST.join(' → ')})`, async ({ page, service, merchant }) => {
    await resize(page, DESKTOP_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    await page.goto(tx.payment_url);
    await payWith(page, CARDS.challenged);
    await answerButton(page, 'Fail').click();
    await expect(page).toHaveURL(new RegExp(`/pay/${tx.token}/\\?`));
    for (const size of DESKTOP_FIRST) {
      await resize(page, size);
      await expect(page.getByRole('alert')).toContainText('could not confirm it was you');
    }
    await payWith(page, CARDS.challenged);
    await answerButton(page, 'Back to the payment').click();
    for (const size of PHONE_FIRST) {
      await resize(page, size);
      await expect(page.getByRole('alert')).toContainText('was not confirmed with your bank');
    }
    expect(await statusOf(service, tx.id)).toBe('N');
  });

  test(`4000 0084 0000 1629: declined after the challenge (${DESKTOP_FIRST.join(' → ')})`, async ({ page, service, merchant }) => {
    await resize(page, DESKTOP_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    await page.goto(tx.payment_url);
    await payWith(page, CARDS.challengedThenDeclined);
    // Complete pressed on the phone here, on the desktop by the 3184 case.
    await resize(page, DESKTOP_FIRST[1]);
    await answerButton(page, 'Complete').click();
    for (const size of PHONE_FIRST) {
      await resize(page, size);
      await expect(page.getByRole('alert')).toContainText(/declined/i);
    }
    expect(await statusOf(service, tx.id)).toBe('N');
  });

  test(`4000 0000 0000 3055: no challenge page at all (${PHONE_FIRST.join(' → ')})`, async ({ page, service, merchant, toShop }) => {
    await resize(page, PHONE_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    await page.goto(tx.payment_url);
    await expect(page.locator('button[name="action"][value="pay"]')).toBeVisible();
    await resize(page, PHONE_FIRST[1]);
    await payWith(page, CARDS.frictionless);
    await toShop(returnTo(`${merchant.origin}/return?order=C-1`));
  });
});

test.describe("the challenge's own page", () => {
  // Two languages a test (two payments and eight axe runs, as many runs as one size's four
  // languages took before): over 30 s on a busy two-core machine.
  for (const languages of [['en', 'es'], ['fr', 'au']]) {
    test(`axe finds nothing on it in light and dark at 360 px and 1280 px: ${languages.join(', ')}`, async ({ page, service, merchant }) => {
      test.setTimeout(60_000);
      for (const language of languages) {
        await resize(page, 'phone');
        const tx = await service.createTransaction({ ...order(merchant), language });
        // Paid without the script: the server answers with the step's page (it has no script of its own either).
        await page.goto(tx.payment_url);
        await page.evaluate(() => document.querySelectorAll('script').forEach((s) => s.remove()));
        const form = await page.request.post(tx.payment_url, {
          form: {
            csrf: await page.locator('input[name="csrf"]').inputValue(),
            action: 'pay',
            gateway: await page.getByRole('radio').first().inputValue(),
            card_number: CARDS.challenged,
            card_expiry: '12/34',
            card_cvc: '123',
            card_name: 'Ada',
          },
          headers: { origin: new URL(tx.payment_url).origin },
          maxRedirects: 0,
        });
        expect(form.status()).toBe(303);
        await page.goto(new URL(form.headers().location!, tx.payment_url).href);
        await expect(page.locator('h1')).toBeVisible();
        expect(await page.locator('html').getAttribute('lang')).toBe(language === 'au' ? 'en-AU' : language);
        expect(await page.locator('script').count()).toBe(0);
        for (const size of PHONE_FIRST) {
          await resize(page, size);
          await expectNoViolationsLightAndDark(page);
        }
      }
    });
  }
});

test.describe('the challenge in the widget', () => {
  async function openWidget(page: Page, merchant: Merchant, service: { url: string }, token: string): Promise<FrameLocator> {
    const url = merchant.page(
      `/challenge-shop-${token}`,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><script src="${service.url}/widget.js" async></script></head>` +
        `<body><main><h1>Shop</h1><div data-checkout-token="${token}"></div></main></body></html>`,
    );
    await page.goto(url);
    return page.frameLocator('iframe[src*="/pay/"]');
  }

  test(`4000 0027 6000 3184: the dialog inside the frame; Complete reports the payment and returns (${PHONE_FIRST.join(' → ')})`, async ({ page, service, merchant, toShop }) => {
    await resize(page, PHONE_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    const frame = await openWidget(page, merchant, service, tx.token);
    await payWith(frame, CARDS.challenged);
    const dialog = frame.getByRole('dialog', { name: 'Confirm it is you' });
    for (const size of PHONE_FIRST) {
      await resize(page, size);
      await expect(dialog).toBeVisible();
      await expect(answerButton(frame, 'Complete')).toBeFocused();
    }
    await answerButton(frame, 'Complete').click();
    await toShop(returnTo(`${merchant.origin}/return?order=C-1`));
    expect(await statusOf(service, tx.id)).toBe('D');
  });

  test(`Fail and Escape keep the payment open (${DESKTOP_FIRST.join(' → ')})`, async ({ page, service, merchant }) => {
    await resize(page, DESKTOP_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    const frame = await openWidget(page, merchant, service, tx.token);
    await payWith(frame, CARDS.challenged);
    await answerButton(frame, 'Fail').click();
    await expect(frame.getByRole('alert')).toContainText('could not confirm it was you');
    await resize(page, DESKTOP_FIRST[1]);
    await expect(frame.getByRole('alert')).toContainText('could not confirm it was you');
    await payWith(frame, CARDS.challenged);
    await expect(frame.getByRole('dialog')).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(frame.getByRole('alert')).toContainText('was not confirmed with your bank');
    expect(await statusOf(service, tx.id)).toBe('N');
  });

  test(`1629 is declined after the challenge (${DESKTOP_FIRST.join(' → ')})`, async ({ page, service, merchant }) => {
    await resize(page, DESKTOP_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    const frame = await openWidget(page, merchant, service, tx.token);
    await payWith(frame, CARDS.challengedThenDeclined);
    // Complete pressed on the phone here, on the desktop by the 3184 case.
    await resize(page, DESKTOP_FIRST[1]);
    await answerButton(frame, 'Complete').click();
    for (const size of PHONE_FIRST) {
      await resize(page, size);
      await expect(frame.getByRole('alert')).toContainText(/declined/i);
    }
    expect(await statusOf(service, tx.id)).toBe('N');
  });

  test(`3055 pays without a challenge (${PHONE_FIRST.join(' → ')})`, async ({ page, service, merchant, toShop }) => {
    await resize(page, PHONE_FIRST[0]);
    const tx = await service.createTransaction(order(merchant));
    const frame = await openWidget(page, merchant, service, tx.token);
    await expect(frame.locator('button[name="action"][value="pay"]')).toBeVisible();
    await resize(page, PHONE_FIRST[1]);
    await payWith(frame, CARDS.frictionless);
    await toShop(returnTo(`${merchant.origin}/return?order=C-1`));
    expect(await statusOf(service, tx.id)).toBe('D');
  });
});
