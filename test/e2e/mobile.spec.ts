import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, type Merchant, test } from './fixtures';

// The screen on a phone (375×740) and a laptop (1280×800): a one-line cart's total and Pay
// button fit the first screen, the order's details fold under the total.

const LANGUAGES = ['en', 'es', 'fr', 'au'] as const;

function oneLine(merchant: Merchant, over: Record<string, unknown> = {}) {
  return {
    currency: 'EUR',
    order_id: 'A-2001',
    gateway_selected: true,
    return_url: `${merchant.origin}/return?order=A-2001`,
    cancel_url: `${merchant.origin}/cancel?order=A-2001`,
    products: [{ amount: 1, product: { name: 'Linen shirt', price: 89.9 } }],
    tax_name: 'IVA 21 %',
    tax_value: 18.88,
    shipping_name: 'Colissimo',
    shipping_value: 4.9,
    ...over,
  };
}

const payButton = (page: Page) => page.locator('button[name="action"][value="pay"]');

async function expectNoAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
}

/** The element's box lies entirely inside the first viewport, without scrolling. */
async function expectInFirstViewport(page: Page, selector: string) {
  const box = await page.evaluate((sel) => {
    const r = document.querySelector(sel)!.getBoundingClientRect();
    return { top: r.top + scrollY, bottom: r.bottom + scrollY, height: innerHeight };
  }, selector);
  expect(box.top, selector).toBeGreaterThanOrEqual(0);
  expect(box.bottom, `${selector} ends at ${box.bottom} of ${box.height}`).toBeLessThanOrEqual(box.height);
}

for (const javaScriptEnabled of [true, false]) {
  test.describe(`phone 375×740 ${javaScriptEnabled ? 'with' : 'without'} JavaScript`, () => {
    test.use({ viewport: { width: 375, height: 740 }, javaScriptEnabled });

    for (const language of LANGUAGES) {
      test(`${language}: total and Pay above the fold, details folded under the total`, async ({ page, service, merchant }) => {
        const tx = await service.createTransaction(oneLine(merchant, { language }));
        await page.goto(tx.payment_url);
        await expectInFirstViewport(page, '.merchant__total');
        await expectInFirstViewport(page, 'button[name="action"][value="pay"]');
        const toggle = page.locator('summary.summary__toggle');
        await expect(toggle).toBeVisible();
        await expect(page.getByText('Linen shirt')).toBeHidden();
        await toggle.click();
        await expect(page.getByText('Linen shirt')).toBeVisible();
        if (javaScriptEnabled) await expectNoAxeViolations(page);
        await page.screenshot({ path: `/tmp/shots/phone-${language}-${javaScriptEnabled ? 'js' : 'nojs'}.png`, fullPage: true });
      });
    }
  });
}

test.describe('laptop 1280×800', () => {
  test.use({ viewport: { width: 1280, height: 800 } });
  for (const language of LANGUAGES) {
    test(`${language}: the details are open beside the form, no toggle`, async ({ page, service, merchant }) => {
      const tx = await service.createTransaction(oneLine(merchant, { language }));
      await page.goto(tx.payment_url);
      await expect(page.locator('summary.summary__toggle')).toBeHidden();
      await expect(page.getByText('Linen shirt')).toBeVisible();
      await expectInFirstViewport(page, 'button[name="action"][value="pay"]');
      await expect(payButton(page)).toBeVisible();
      await expectNoAxeViolations(page);
      await page.screenshot({ path: `/tmp/shots/laptop-${language}.png`, fullPage: true });
    });
  }
});
