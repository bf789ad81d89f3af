import type { Page } from '@playwright/test';
import { axeViolations } from './axe';
import { expect, type Merchant, type Service } from './fixtures';

// What the screen specs share: the order a customer pays, the buttons they press, and the
// checks every state must pass.

export const LANGUAGES = ['en', 'es', 'fr', 'au'] as const;
export type Language = (typeof LANGUAGES)[number];

export const PHONE = { width: 375, height: 740 };
export const LAPTOP = { width: 1280, height: 800 };

/** A one-line cart with tax, named shipping and a coupon, paid in EUR. */
export function oneLine(merchant: Merchant, over: Record<string, unknown> = {}) {
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

export const payButton = (page: Page) => page.locator('button[name="action"][value="pay"]');
/** The same name and value on both steps of cancelling: the first asks, the second confirms. */
export const cancelButton = (page: Page) => page.locator('button[name="action"][value="cancel"]');
export const numberInput = (page: Page) => page.locator('input[autocomplete="cc-number"]');
export const expiryInput = (page: Page) => page.locator('input[autocomplete="cc-exp"]');
export const cvcInput = (page: Page) => page.locator('input[autocomplete="cc-csc"]');
export const nameInput = (page: Page) => page.locator('input[autocomplete="cc-name"]');

async function expectNoAxeViolations(page: Page) {
  const violations = await axeViolations(page);
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
}

/**
 * axe finds nothing in light and in dark (within `include` when given): every rule in
 * light, the colour rules again in dark (COLOUR_RULES); the page is left light.
 */
export async function expectNoViolationsLightAndDark(page: Page, include?: string) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    const violations = await axeViolations(page, include, colorScheme === 'light' ? 'all' : 'colours');
    expect(violations.map((v) => `${colorScheme} ${v.id}: ${v.nodes.map((n) => n.target).join(', ')}`)).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * The same for a page open in a context without JavaScript, where axe (which runs inside the
 * page) cannot: the document as that page parsed it is served again at its URL, its scripts
 * taken out, to a page of a context with scripts and the same viewport, and checked there.
 * The markup is the same (the pages have no <noscript>), and so are its styles.
 */
export async function expectNoViolationsWithoutScript(page: Page) {
  const html = (await page.content()).replace(/<script\b[\s\S]*?<\/script>/gi, '');
  const context = await page.context().browser()!.newContext({ viewport: page.viewportSize(), javaScriptEnabled: true });
  try {
    const copy = await context.newPage();
    await copy.route(page.url(), (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: html }));
    await copy.goto(page.url());
    expect(await copy.locator('script').count()).toBe(0);
    await expectNoViolationsLightAndDark(copy);
  } finally {
    await context.close();
  }
}

/** axe runs inside the page, so only where scripts may run; without them the markup is the same. */
export async function expectAccessible(page: Page, javaScriptEnabled: boolean) {
  if (javaScriptEnabled) await expectNoAxeViolations(page);
}

/** Types as a thumb would, key by key, so the screen formats as it goes. */
export async function typeInto(page: Page, selector: ReturnType<typeof numberInput>, text: string) {
  await selector.click();
  await page.keyboard.type(text);
}

export async function statusOf(service: Service, id: string): Promise<string> {
  return (await service.api('GET', `/transaction/${id}/`)).body.status;
}

/** Fills the card fields at once (as autofill would); `expiry` as the customer would give it. */
export async function fillCard(page: Page, number: string, expiry = '12/34') {
  await numberInput(page).fill(number);
  await expiryInput(page).fill(expiry);
  await cvcInput(page).fill('123');
  await nameInput(page).fill('Ada Lovelace');
}
