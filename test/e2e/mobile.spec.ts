import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { expectAccessible, LANGUAGES, LAPTOP, oneLine, payButton, PHONE } from './screen';

// The screen on a phone and a laptop: a one-line cart's total and Pay button fit the first
// screen, the order's details fold under the total on the phone and stand open beside the
// form on the laptop.

/** The element's box lies entirely inside the first viewport, without scrolling. */
async function expectInFirstViewport(page: Page, selector: string) {
  const box = await page.evaluate((sel) => {
    const r = document.querySelector(sel)!.getBoundingClientRect();
    return { top: r.top + scrollY, bottom: r.bottom + scrollY, height: innerHeight };
  }, selector);
  expect(box.top, selector).toBeGreaterThanOrEqual(0);
  expect(box.bottom, `${selector} ends at ${box.bottom} of ${box.height}`).toBeLessThanOrEqual(box.height);
}

const toggle = (page: Page) => page.locator('summary.summary__toggle');

for (const javaScriptEnabled of [true, false]) {
  test.describe(`phone 375×740 ${javaScriptEnabled ? 'with' : 'without'} JavaScript`, () => {
    test.use({ viewport: PHONE, javaScriptEnabled });

    for (const language of LANGUAGES) {
      test(`${language}: total and Pay above the fold, details folded under the total`, async ({ page, service, merchant }) => {
        const tx = await service.createTransaction(oneLine(merchant, { language, coupon_name: 'WELCOME', coupon_value: 5 }));
        await page.goto(tx.payment_url);
        await expectInFirstViewport(page, '.merchant__total');
        await expectInFirstViewport(page, 'button[name="action"][value="pay"]');
        await expect(toggle(page)).toBeVisible();
        await expect(page.getByText('Linen shirt')).toBeHidden();
        await toggle(page).click();
        await expect(page.getByText('Linen shirt')).toBeVisible();
        // Custom names beside their kind, in the order of the computation.
        const rows = await page.locator('.totals dt').allInnerTexts();
        expect(rows.map((row) => row.replace(/\s+/g, ' ').trim()).slice(1, 4).map((row) => row.split(' · ')[1])).toEqual([
          'IVA 21 %',
          'Colissimo',
          'WELCOME',
        ]);
        await expectAccessible(page, javaScriptEnabled);
      });
    }
  });
}

test.describe('laptop 1280×800', () => {
  test.use({ viewport: LAPTOP });
  for (const language of LANGUAGES) {
    test(`${language}: the details are open beside the form, no toggle`, async ({ page, service, merchant }) => {
      const tx = await service.createTransaction(oneLine(merchant, { language }));
      await page.goto(tx.payment_url);
      await expect(toggle(page)).toBeHidden();
      await expect(page.getByText('Linen shirt')).toBeVisible();
      await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible();
      await expectInFirstViewport(page, 'button[name="action"][value="pay"]');
      await expect(payButton(page)).toBeVisible();
      await expectAccessible(page, true);
    });
  }
});
