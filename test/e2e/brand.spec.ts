import type { Locator, Page } from '@playwright/test';
import { contrast } from '../../server/domain/contrast';
import { axeViolations } from './axe';
import { expect, type Service, startService, test } from './fixtures';

// A merchant's brand on the payment page and the sign-up page in Chromium: the logo loads
// from our origin, the pay button wears the brand colour with the text that reads on it, nothing
// breaks the CSP, and axe finds nothing in light and dark, on a phone and a desktop. The
// service is this file's own, so no other test sees the brand.

/** A 24×24 PNG (a filled square), so the logo has a size to show. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAAAIElEQVR4nGNoyGegCqKOKaMGjRo0atCoQaMGjRpEEQIAr7cZ35fOyr0AAAAASUVORK5CYII=',
  'base64',
);

let own: { service: Service; stop(): Promise<void> };
let applied = '';

test.beforeAll(async () => {
  own = await startService();
  const brand = await own.service.api('PATCH', '/environment/branding/', { display_name: 'Tostadores Ana', brand_color: '#ffdd00', accent_color: '#ffdd00' });
  expect(brand.status).toBe(200);
  // Yellow is kept: the button takes dark text on it rather than turning olive.
  expect(brand.body).toMatchObject({ brand_color: '#ffdd00', adjustments: [] });
  applied = brand.body.brand_color;
  const logo = await own.service.api('POST', '/environment/branding/logo/', { content_type: 'image/png', data: PNG.toString('base64') });
  expect(logo.status, JSON.stringify(logo.body)).toBe(201);
});
test.afterAll(() => own?.stop());

const rgb = (hex: string) => `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(', ')})`;
const hexOf = (css: string) => `#${css.match(/\d+/g)!.slice(0, 3).map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`;

/** The contrast of the pay button's text on its background, as the browser drew them. */
async function buttonContrast(button: Locator): Promise<number> {
  const [color, background] = await button.evaluate((b) => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]);
  return contrast(hexOf(color!), hexOf(background!));
}

async function expectNoAxeViolations(page: Page) {
  const violations = await axeViolations(page);
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
}

async function expectBrand(page: Page) {
  const logo = page.locator('img.merchant__logo');
  await expect(logo).toBeVisible();
  expect(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(24);
  await expect(page.getByRole('heading', { name: 'Tostadores Ana' })).toBeVisible();
}

for (const viewport of [{ width: 360, height: 740 }, { width: 1280, height: 800 }]) {
  test(`the payment page wears the brand at ${viewport.width} px, readable in light and dark`, async ({ page }) => {
    test.setTimeout(60_000);
    const violations: string[] = [];
    page.on('console', (m) => m.type() === 'error' && violations.push(m.text()));
    await page.setViewportSize(viewport);
    const tx = await own.service.createTransaction({ currency: 'EUR', products: [{ amount: 1, product: { name: 'Café', price: 12 } }] });
    await page.goto(tx.payment_url);
    await expectBrand(page);
    const pay = page.locator('button[name="action"][value="pay"]');
    await expect(pay).toHaveCSS('background-color', rgb(applied));
    await expect(pay).toHaveCSS('color', rgb('#161a22'));
    expect(await buttonContrast(pay)).toBeGreaterThanOrEqual(4.5);
    await expectNoAxeViolations(page);
    await page.emulateMedia({ colorScheme: 'dark' });
    await expect(pay).toHaveCSS('color', rgb('#0b1220'));
    expect(await buttonContrast(pay)).toBeGreaterThanOrEqual(4.5);
    await expectNoAxeViolations(page);
    // Nothing the brand brought was refused by the page's CSP.
    expect(violations.filter((v) => /Content Security Policy/i.test(v))).toEqual([]);
  });
}

test('the sign-up page wears the brand too', async ({ page }) => {
  const plan = await own.service.api('POST', '/plan/', { name: 'Café del mes', amount: 9.99, currency: 'EUR', interval: 'month' });
  const sub = await own.service.api('POST', '/subscription/', { plan: plan.body.id, language: 'es' });
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(sub.body.payment_url);
  await expectBrand(page);
  await expect(page.locator('button[name="action"][value="pay"]')).toHaveCSS('background-color', rgb(applied));
  await expectNoAxeViolations(page);
});
