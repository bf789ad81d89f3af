import { expect } from 'vitest';
import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { back, onCheckout, type StripeShop, toCheckout } from './stripe-shop';

// The customer's steps of a Stripe charge that needs them (docs/processors.md "Payments
// that need the customer"), over real HTTP: a card saved on the double's page, our confirm
// page and its button, the double's stand-in 3-D Secure page.

export const SAVED = 'https://shop.example/saved';
export const FORM = 'application/x-www-form-urlencoded';
export const DAY = 24 * 3600_000;
/** A confirm link; its token in the first group. */
export const CONFIRM = /\/pay\/confirm\/(cfm_[A-Za-z0-9_-]{32})\/$/;

/** A card saved for a new client on the double's page with `action` (auth_always: the card that always asks for 3-D Secure); the authorization. */
export async function savedCard(shop: Pick<StripeShop, 't' | 'double' | 'api'>, action: string, idNumber: string): Promise<{ id: string }> {
  const client = (await shop.api.post('/client/', { name: 'Ada', id_country: 'ES', id_number: idNumber })).body.id;
  const request = (await shop.api.post('/authorization/', { gateway: STRIPE_CARD_ID, return_url: SAVED, client })).body;
  const returned = await back(await onCheckout(await toCheckout(shop, request.token), action));
  expect(returned.headers.get('location')).toBe(SAVED);
  return request;
}

export const page = (url: string) => fetch(url, { redirect: 'manual' });
export const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
/** The confirm page's button, posted from the service's own origin. */
export const press = (origin: string, url: string, csrf: string) =>
  fetch(url, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM, origin }, body: new URLSearchParams({ csrf }) });

/** The page's button: the 303 to the double's 3-D Secure page. */
export async function toBank(origin: string, confirmUrl: string): Promise<string> {
  const res = await press(origin, confirmUrl, csrfOf(await (await page(confirmUrl)).text()));
  expect(res.status, await res.clone().text()).toBe(303);
  return res.headers.get('location')!;
}

/** A button on the stand-in 3-D Secure page: the 303 back to our return route. */
export async function authenticate(bank: string, action: 'complete' | 'fail'): Promise<string> {
  const res = await fetch(bank, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM }, body: new URLSearchParams({ action }) });
  expect(res.status).toBe(303);
  return res.headers.get('location')!;
}
