import type { Page } from '@playwright/test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { axeViolations } from './axe';
import { CARDS, expect, type Merchant, type Service, test, typeCardWithKeyboard, returnTo } from './fixtures';

// The hosted checkout against the real server in Chromium: every state, four languages,
// with and without JavaScript, by keyboard, at 360 px, and under concurrent clicks.

const LANGUAGES = ['en', 'es', 'fr', 'au'] as const;

function order(merchant: Merchant, over: Record<string, unknown> = {}) {
  return {
    currency: 'EUR',
    order_id: 'A-1001',
    gateway_selected: true,
    return_url: `${merchant.origin}/return?order=A-1001`,
    cancel_url: `${merchant.origin}/cancel?order=A-1001`,
    products: [
      { amount: 2, product: { name: 'Coffee beans 250 g', price: 8.5 } },
      { amount: 1, product: { name: 'Ceramic mug', price: 12 } },
    ],
    tax_value: 6.09,
    tax_name: 'VAT 21 %',
    shipping_value: 4.95,
    shipping_name: 'Courier',
    ...over,
  };
}

async function fillCard(page: Page, number: string) {
  await page.getByLabel(/card number|número de (la )?tarjeta|numéro de (la )?carte/i).fill(number);
  await page.locator('input[autocomplete="cc-exp"]').fill('12/34');
  await page.locator('input[autocomplete="cc-csc"]').fill('123');
  await page.locator('input[autocomplete="cc-name"]').fill('Ada Lovelace');
}

const payButton = (page: Page) => page.locator('button[name="action"][value="pay"]');
const cancelButton = (page: Page) => page.locator('button[name="action"][value="cancel"]');

async function expectNoAxeViolations(page: Page) {
  const violations = await axeViolations(page);
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
}

async function expectNoHorizontalScroll(page: Page) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBeLessThanOrEqual(0);
}

function salesOf(service: Service, transactionId: string): number {
  const db = new Database(join(service.dataDir, 'checkout.db'), { readonly: true });
  try {
    return (db.prepare('select count(*) as n from sales where transaction_id = ?').get(transactionId) as { n: number }).n;
  } finally {
    db.close();
  }
}

test.describe('formatting in four languages', () => {
  const cases = [
    { language: 'es', currency: 'EUR', price: 12345.67, expected: '12.345,67 €', lang: 'es' },
    { language: 'fr', currency: 'EUR', price: 1234.56, expected: '1 234,56 €', lang: 'fr' },
    { language: 'au', currency: 'AUD', price: 1234.56, expected: '$1,234.56', lang: 'en-AU' },
    { language: 'en', currency: 'AUD', price: 1234.56, expected: 'A$1,234.56', lang: 'en' },
  ];
  for (const c of cases) {
    test(`${c.language}: ${c.expected}`, async ({ page, service, merchant }) => {
      const tx = await service.createTransaction(
        order(merchant, {
          language: c.language,
          currency: c.currency,
          products: [{ amount: 1, product: { name: 'Sofa', price: c.price } }],
          tax_value: undefined,
          tax_name: undefined,
          shipping_value: undefined,
          shipping_name: undefined,
        }),
      );
      await page.goto(tx.payment_url);
      await expect(page.locator('html')).toHaveAttribute('lang', c.lang);
      // Intl uses narrow no-break spaces in French; compare with plain spaces.
      const text = (await page.locator('main').innerText()).replace(/[\u202f\u00a0]/g, ' ');
      expect(text).toContain(c.expected);
      await expect(payButton(page)).toContainText(c.expected.replace(/[\u202f\u00a0]/g, ' ').split(' ')[0]!);
    });
  }

  for (const language of LANGUAGES) {
    test(`${language}: lines, totals, axe and 360 px`, async ({ page, service, merchant }) => {
      await page.setViewportSize({ width: 360, height: 640 });
      const tx = await service.createTransaction(order(merchant, { language, coupon_value: 2, coupon_name: 'WELCOME' }));
      await page.goto(tx.payment_url);
      const main = page.locator('main');
      await expect(main).toContainText('Coffee beans 250 g');
      await expect(main).toContainText('Ceramic mug');
      await expect(main).toContainText('VAT 21 %');
      await expect(main).toContainText('Courier');
      await expect(main).toContainText('WELCOME');
      // On a phone the order's details are folded under the total.
      await page.locator('summary.summary__toggle').click();
      // 2 × 8.50 + 12 = 29.00; + 6.09 + 4.95 − 2 = 38.04
      const digits = (await main.innerText()).replace(/[^\d]/g, ' ');
      expect(digits).toMatch(/\b38 04\b/);
      expect(digits).toMatch(/\b29 00\b/);
      await expectNoHorizontalScroll(page);
      await expectNoAxeViolations(page);
      await page.screenshot({ path: test.info().outputPath(`checkout-360-${language}.png`), fullPage: true });
    });
  }

  test('Accept-Language picks the page language when the transaction has none', async ({ browser, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    const context = await browser.newContext({ locale: 'fr-FR', extraHTTPHeaders: { 'accept-language': 'de-DE, fr;q=0.8, en;q=0.5' } });
    const page = await context.newPage();
    await page.goto(tx.payment_url);
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await context.close();
  });
});

for (const javaScriptEnabled of [true, false]) {
  const mode = javaScriptEnabled ? 'with JavaScript' : 'without JavaScript';
  test.describe(`paying ${mode}`, () => {
    test.use({ javaScriptEnabled });

    test('approve with 4242… lands on return_url', async ({ page, service, merchant, toShop }) => {
      const tx = await service.createTransaction(order(merchant));
      await page.goto(tx.payment_url);
      await expect(page.getByRole('radio').first()).toBeChecked();
      await fillCard(page, CARDS.approved);
      await payButton(page).click();
      if (javaScriptEnabled) {
        // The screen confirms first, with a way back at once; then it takes the customer there.
        await expect(page.getByRole('heading', { name: 'Payment complete' })).toBeVisible();
        await expect(page.getByText('Taking you back to')).toBeVisible();
        expect(merchant.arrivals).toEqual([]);
      }
      await toShop(returnTo(`${merchant.origin}/return?order=A-1001`));
      expect(merchant.arrivals).toEqual([expect.stringMatching(returnTo('/return?order=A-1001'))]);
      const read = await service.api('GET', `/transaction/${tx.id}/`);
      expect(read.body.status).toBe('D');
      expect(salesOf(service, tx.id)).toBe(1);
    });

    // One screen through three answers: a decline, insufficient funds, then the approval
    // (the decline first: the insufficient-funds message says "declined" too). And what the
    // service logged on the way holds nothing of the card, the keys or the checkout token.
    test('decline, insufficient funds, then approve; the logs hold no card data, keys or checkout tokens', async ({ page, service, merchant, toShop }) => {
      const tx = await service.createTransaction(order(merchant));
      await page.goto(tx.payment_url);
      await fillCard(page, CARDS.declined);
      await payButton(page).click();
      await expect(page.getByRole('alert')).toContainText(/declined/i);
      expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
      // axe runs inside the page, so only where scripts may run.
      if (javaScriptEnabled) await expectNoAxeViolations(page);
      await fillCard(page, CARDS.insufficientFunds);
      await payButton(page).click();
      await expect(page.getByRole('alert')).toContainText(/insufficient funds/i);
      await fillCard(page, CARDS.approved);
      await payButton(page).click();
      await toShop(/\/return\?order=A-1001&transaction_id=[^&]+&status=D&timestamp=\d+&signature=[^&]+$/);
      expect(salesOf(service, tx.id)).toBe(1);
      const logs = service.logLines().join('\n');
      expect(logs).toContain('payment approved'); // the logs were captured at all
      const secret = service.auth.split(':')[1]!;
      for (const forbidden of [secret, service.auth, tx.token, '4242424242424242', '4242 4242 4242 4242', '4000000000000002', 'Ada Lovelace']) {
        expect(logs).not.toContain(forbidden);
      }
    });

    test('cancel, once confirmed, lands on cancel_url', async ({ page, service, merchant, toShop }) => {
      const tx = await service.createTransaction(order(merchant));
      await page.goto(tx.payment_url);
      await cancelButton(page).click();
      await expect(page.getByRole('heading', { name: 'Cancel this payment?' })).toBeVisible();
      await cancelButton(page).click();
      await toShop(returnTo(`${merchant.origin}/cancel?order=A-1001`));
      expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('C');
    });

    test('no preselection: paying without a choice asks for one', async ({ page, service, merchant }) => {
      const tx = await service.createTransaction(order(merchant, { gateway_selected: false }));
      await page.goto(tx.payment_url);
      for (const radio of await page.getByRole('radio').all()) await expect(radio).not.toBeChecked();
      await payButton(page).click();
      await expect(page.getByText(/choose a payment method/i).first()).toBeVisible();
      await expect(page.getByRole('group', { name: /payment method/i })).toHaveAccessibleDescription(/choose a payment method/i);
      // Announced as it appears, and heard again on the radio that takes the focus (a script moves it).
      await expect(page.locator('#gateway-error')).toHaveAttribute('aria-live', 'polite');
      if (javaScriptEnabled) await expect(page.getByRole('radio').first()).toBeFocused();
      await expect(page.getByRole('radio').first()).toHaveAccessibleDescription(/choose a payment method/i);
      expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
    });

    test('invalid card details get inline errors and charge nothing', async ({ page, service, merchant }) => {
      const tx = await service.createTransaction(order(merchant));
      await page.goto(tx.payment_url);
      await fillCard(page, '4242 4242 4242 4241');
      await payButton(page).click();
      const number = page.locator('input[autocomplete="cc-number"]');
      await expect(number).toHaveAttribute('aria-invalid', 'true');
      expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
    });

    // Rejected on the provider page first, then approved there: one screen for both answers.
    test('redirect gateway: reject comes back declined, then approve on the provider page', async ({ page, service, merchant, toShop }) => {
      const tx = await service.createTransaction(order(merchant));
      await page.goto(tx.payment_url);
      await page.getByRole('radio', { name: /sandbox pay/i }).check();
      await payButton(page).click();
      await page.getByRole('button', { name: /reject/i }).click();
      await expect(page.getByRole('alert')).toContainText(/declined/i);
      expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
      await page.getByRole('radio', { name: /sandbox pay/i }).check();
      await payButton(page).click();
      await page.getByRole('button', { name: /approve/i }).click();
      await toShop(/\/return\?order=A-1001&transaction_id=[^&]+&status=D&timestamp=\d+&signature=[^&]+$/);
      expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('D');
    });
  });
}

test.describe('states', () => {
  // The paid screen, then a forged POST on it, then a reload: one payment for the three.
  test('paid without return_url shows the receipt; a forged POST changes nothing; a reload shows it again, without the form', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant, { return_url: undefined }));
    await page.goto(tx.payment_url);
    await fillCard(page, CARDS.approved);
    await payButton(page).click();
    await expect(page.getByRole('heading', { name: /payment complete/i })).toBeVisible();
    await expect(page.locator('main')).toContainText('4242');
    await expectNoAxeViolations(page);
    const status = await page.evaluate(async () => {
      const csrf = JSON.parse(document.getElementById('checkout-state')!.textContent!).view.csrf;
      const r = await fetch(location.pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
        body: JSON.stringify({ action: 'cancel', gateway: null, fields: {} }),
      });
      return r.status;
    });
    expect(status).toBe(409);
    expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('D');
    await page.reload();
    await expect(page.getByRole('heading', { name: /payment complete/i })).toBeVisible();
    await expect(payButton(page)).toHaveCount(0);
  });

  test('cancelled page', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant, { cancel_url: undefined, language: 'es' }));
    await page.goto(tx.payment_url);
    await cancelButton(page).click();
    await expect(page.getByRole('heading', { name: '¿Cancelar este pago?' })).toBeVisible();
    await cancelButton(page).click();
    await expect(page.locator('h1, h2').filter({ hasText: /cancelad/i }).first()).toBeVisible();
    await expectNoAxeViolations(page);
  });

  test('expired page, and expiry noticed while the page is open', async ({ page, service, merchant }) => {
    const soon = new Date(Date.now() + 3000).toISOString();
    const tx = await service.createTransaction(order(merchant, { expired_date: soon }));
    await page.goto(tx.payment_url);
    await expect(payButton(page)).toBeVisible();
    await expect(page.getByRole('heading', { name: /expired/i })).toBeVisible({ timeout: 10_000 });
    await expectNoAxeViolations(page);
    await page.reload();
    await expect(page.getByRole('heading', { name: /expired/i })).toBeVisible();
    expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('E');
  });

  test('unknown token is a translated 404 page', async ({ browser, service }) => {
    const context = await browser.newContext({ locale: 'es-ES' });
    const page = await context.newPage();
    const res = await page.goto(`${service.url}/pay/thisTokenDoesNotExist1234/`);
    expect(res?.status()).toBe(404);
    await expect(page.locator('html')).toHaveAttribute('lang', 'es');
    await expectNoAxeViolations(page);
    await context.close();
  });
});

test.describe('security and robustness', () => {
  test('a missing asset is a 404, not an error', async ({ request, service }) => {
    const res = await request.get(`${service.url}/assets/no-such-file.js`);
    expect(res.status()).toBe(404);
  });

  // The page's headers are read from the same load.
  test('merchant text is escaped in markup and state; headers: strict CSP with nonce, no framing, no referrer', async ({ page, service, merchant }) => {
    const evil = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';
    const tx = await service.createTransaction(order(merchant, { products: [{ amount: 1, product: { name: evil, price: 1 } }] }));
    const res = await page.goto(tx.payment_url);
    const h = res!.headers();
    expect(h['content-security-policy']).toMatch(/script-src 'nonce-[^']+'/);
    expect(h['content-security-policy']).not.toContain('unsafe-inline');
    expect(h['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(h['x-frame-options']).toBe('DENY');
    expect(h['referrer-policy']).toBe('no-referrer');
    await expect(page.locator('main')).toContainText('</script>');
    expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
  });

  test('20 parallel pay posts on one token create exactly one sale', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant, { return_url: undefined }));
    await page.goto(tx.payment_url);
    const statuses = await page.evaluate(async (card) => {
      const csrf = JSON.parse(document.getElementById('checkout-state')!.textContent!).view;
      const body = JSON.stringify({
        action: 'pay',
        gateway: csrf.gateways[0].id,
        fields: { card_number: card, card_expiry: '12/34', card_cvc: '123', card_name: 'Ada' },
      });
      const posts = Array.from({ length: 20 }, () =>
        fetch(location.pathname, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf.csrf }, body }).then(
          async (r) => ({ status: r.status, outcome: (await r.json()).view?.status }),
        ),
      );
      return Promise.all(posts);
    }, CARDS.approved);
    expect(statuses.filter((s) => s.status === 200 && s.outcome === 'paid')).toHaveLength(1);
    expect(salesOf(service, tx.id)).toBe(1);
    expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('D');
  });

  test('a cross-site form post is refused', async ({ page, service, merchant }) => {
    const tx = await service.createTransaction(order(merchant));
    const attacker = merchant.page(
      '/attack',
      `<!doctype html><html lang="en"><title>x</title><form id="f" method="post" action="${tx.payment_url}">
       <input name="action" value="cancel"></form><script>document.getElementById('f').submit()</script></html>`,
    );
    await page.goto(attacker);
    await page.waitForURL(tx.payment_url);
    expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
  });
});

test('keyboard only: choose, fill and pay', async ({ page, service, merchant, toShop }) => {
  const tx = await service.createTransaction(order(merchant, { gateway_selected: false }));
  await page.goto(tx.payment_url);
  const focused = () => page.evaluate(() => document.activeElement?.getAttribute('autocomplete') ?? document.activeElement?.getAttribute('type'));
  // Tab to the gateway group, pick the first with Space, then the card fields in order.
  for (let i = 0; i < 20 && (await focused()) !== 'radio'; i++) await page.keyboard.press('Tab');
  await page.keyboard.press('Space');
  await expect(page.getByRole('radio').first()).toBeChecked();
  for (let i = 0; i < 10 && (await focused()) !== 'cc-number'; i++) await page.keyboard.press('Tab');
  await typeCardWithKeyboard(page);
  await expect(payButton(page)).toBeFocused();
  await page.keyboard.press('Enter');
  await toShop(/\/return\?order=A-1001&transaction_id=[^&]+&status=D&timestamp=\d+&signature=[^&]+$/);
});

test('card testing: after ten declines the screen gives the time to try again, disables Pay and charges nothing', async ({ page, service, merchant }) => {
  const tx = await service.createTransaction(order(merchant));
  await page.goto(tx.payment_url);
  const alert = page.getByRole('alert');
  // Each click's answer is awaited, so every attempt is a decline rather than "in progress";
  // then the screen's own handling of it (focus moves to the marked card field, or to the
  // alert once Pay is locked), so the next card is not typed while the focus still moves.
  const pay = async (card: string) => {
    await fillCard(page, card);
    const [answer] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), payButton(page).click()]);
    await expect(page.locator(answer.status() === 429 ? '#checkout-alert' : 'input[autocomplete="cc-number"]')).toBeFocused();
    return answer.status();
  };
  for (let i = 0; i < 10; i++) expect(await pay(CARDS.declined)).toBe(200);
  await expect(alert).toContainText(/declined/i);
  expect(await pay(CARDS.approved)).toBe(429);
  await expect(alert).toContainText(/too many declined payment attempts/i);
  // The wait is a time of day, and Pay stays disabled until then.
  await expect(alert).toContainText(/try again at \d{1,2}:\d{2}/);
  await expect(payButton(page)).toBeDisabled();
  expect((await service.api('GET', `/transaction/${tx.id}/`)).body.status).toBe('N');
  expect(salesOf(service, tx.id)).toBe(0);
});
