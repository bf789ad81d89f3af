import type { Locator, Page } from '@playwright/test';
import { axeViolations } from './axe';
import { CARDS, expect, test } from './fixtures';

// The language switcher on the payment page and the sign-up page: links to `?lang=` with
// hreflang, reached and followed with the keyboard alone, axe finding nothing, and the
// whole row inside a 360 px phone's width. The language chosen stays through a payment.

async function expectNoAxeViolations(page: Page) {
  const violations = await axeViolations(page);
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
}

/** Tabs through the page until `target` has the focus (as a keyboard user gets there). */
async function tabTo(page: Page, target: Locator) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error('never reached by Tab');
}

async function expectSwitcher(page: Page, label: string, current: string) {
  const nav = page.getByRole('navigation', { name: label });
  await expect(nav).toBeVisible();
  const links = nav.getByRole('link');
  await expect(links).toHaveText(['English', 'Español', 'Français', 'English (Australia)']);
  for (const [name, hreflang, lang] of [
    ['English', 'en', 'en'],
    ['Español', 'es', 'es'],
    ['Français', 'fr', 'fr'],
    ['English (Australia)', 'en-AU', 'au'],
  ] as const) {
    const link = nav.getByRole('link', { name, exact: true });
    await expect(link).toHaveAttribute('hreflang', hreflang);
    await expect(link).toHaveAttribute('href', `?lang=${lang}`);
  }
  await expect(nav.locator('[aria-current="true"]')).toHaveText(current);
  // Everything within the phone's width: nothing scrolls sideways.
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow).toBe(0);
  const box = await nav.boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(page.viewportSize()!.width);
}

test('the payment page switches language by keyboard at 360 px, and pays in the language chosen', async ({ page, service }) => {
  test.setTimeout(60_000);
  await page.setViewportSize({ width: 360, height: 740 });
  const tx = await service.createTransaction({ currency: 'EUR', products: [{ amount: 1, product: { name: 'Café', price: 12 } }] });
  await page.goto(tx.payment_url);
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
  await expectSwitcher(page, 'Language', 'English');
  await expectNoAxeViolations(page);

  await tabTo(page, page.getByRole('link', { name: 'Español' }));
  await page.keyboard.press('Enter');
  await expect(page.locator('html')).toHaveAttribute('lang', 'es');
  expect(new URL(page.url()).search).toBe('?lang=es');
  await expectSwitcher(page, 'Idioma', 'Español');
  await expectNoAxeViolations(page);

  await page.getByRole('radio', { name: 'Tarjeta' }).check();
  await page.locator('input[autocomplete="cc-number"]').fill(CARDS.approved);
  await page.locator('input[autocomplete="cc-exp"]').fill('12/34');
  await page.locator('input[autocomplete="cc-csc"]').fill('123');
  await page.locator('input[autocomplete="cc-name"]').fill('Ana');
  await page.locator('button[name="action"][value="pay"]').click();
  await expect(page.getByRole('heading', { name: 'Pago completado' })).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Idioma' })).toBeVisible();
});

test('the sign-up page has the switcher too, and follows it without JavaScript', async ({ page: scripted, browser, service }) => {
  test.setTimeout(60_000);
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const plan = await service.api('POST', '/plan/', { name: 'Coffee club', amount: 9.99, currency: 'EUR', interval: 'month', trial_days: 14 });
  const sub = await service.api('POST', '/subscription/', { plan: plan.body.id, language: 'en' });
  await page.goto(sub.body.payment_url);
  await expectSwitcher(page, 'Language', 'English');
  await tabTo(page, page.getByRole('link', { name: 'Français' }));
  await page.keyboard.press('Enter');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expectSwitcher(page, 'Langue', 'Français');
  await expect(page.locator('button[name="action"][value="pay"]')).toHaveText('M’abonner');
  await context.close();
  // axe runs script in the page: the same page with JavaScript on.
  await scripted.setViewportSize({ width: 360, height: 740 });
  await scripted.goto(`${sub.body.payment_url}?lang=fr`);
  await expectSwitcher(scripted, 'Langue', 'Français');
  await expectNoAxeViolations(scripted);
});
