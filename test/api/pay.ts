import { randomInt } from 'node:crypto';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { luhn } from '../../widget/fields/card';
import type { Client } from './harness';

// Paying the way a customer does: the real checkout page and its form post, so tests of
// what happens after a payment start from a sale the checkout itself made.

export const SANDBOX_CARD = '0190f5a0-0000-7000-8000-000000000001';

/**
 * A 16-digit card number no other test run types, `prefix` first and `last4` last: the limit
 * per card (checkout/limits.ts) counts every attempt a number not among the published test
 * cards makes in a database, and PostgreSQL's test database is shared with earlier runs.
 */
export function freshCard(prefix = '4', last4 = ''): string {
  const body = prefix + Array.from({ length: 15 - prefix.length - last4.length }, () => randomInt(10)).join('');
  // Any one digit takes each Luhn remainder once over 0-9.
  for (let d = 0; d < 10; d++) if (luhn(body + d + last4)) return body + d + last4;
  throw new Error('unreachable');
}

/** What the hydrated screen starts from: the page's csrf and the gateway it shows chosen. */
export interface ScreenState {
  csrf: string;
  selectedGateway: string | null;
}

/**
 * Posts the checkout form as the hydrated screen does: the csrf from the page, JSON body
 * (or one made from what the page showed).
 */
export async function checkoutPost(baseUrl: string, token: string, body: Record<string, unknown> | ((screen: ScreenState) => Record<string, unknown>), headers: Record<string, string> = {}): Promise<Response> {
  const page = await fetch(`${baseUrl}/pay/${token}/`);
  const html = await page.text();
  const state = /<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html);
  if (!state) throw new Error(`no checkout state on the page (${page.status})`);
  const screen = (JSON.parse(state[1]!) as { view: ScreenState }).view;
  return fetch(`${baseUrl}/pay/${token}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': screen.csrf, ...headers },
    body: JSON.stringify(typeof body === 'function' ? body(screen) : body),
  });
}

const statusOf = async (res: Promise<Response>) => {
  const r = await res;
  await r.arrayBuffer();
  return r.status;
};

/** The pay request and its whole answer, for tests that read more than the status. */
export const payWithCard = (baseUrl: string, token: string, card: string = TEST_CARDS.approved, gateway = SANDBOX_CARD, headers: Record<string, string> = {}) =>
  checkoutPost(
    baseUrl,
    token,
    { action: 'pay', gateway, fields: { card_number: card, card_expiry: '12/34', card_cvc: '123', card_name: 'A' } },
    headers,
  );

/**
 * A pay sent while the database may be away, as fault tests count it: its status (the
 * page's own when it had no form to post; null when no answer came) and, for a 200, the
 * status its screen shows: paid, or checking when the record of the charge was cut off.
 */
export async function payUnderFault(pay: Promise<Response>): Promise<{ status: number | null; shown?: string }> {
  // payWithCard reads the page first and throws with the page's status when it has no form.
  const res = await pay.catch((e: Error) => Number(/\((\d{3})\)$/.exec(e.message)?.[1]) || null);
  if (!(res instanceof Response)) return { status: res };
  if (res.status !== 200) {
    await res.arrayBuffer();
    return { status: res.status };
  }
  return { status: 200, shown: ((await res.json()) as { view?: { status?: string } }).view?.status };
}

/**
 * Pays a payment link (`payment_url`) as its screen would, with the gateway it shows chosen
 * (`gateway_selected`) and `card` typed in by `holder`: for tests of what follows a payment,
 * where driving the screen itself is the checkout's own tests' job. Resolves once paid.
 */
export async function payLink(paymentUrl: string, card: string, holder: string): Promise<void> {
  const { origin, pathname } = new URL(paymentUrl);
  const token = pathname.split('/')[2]!;
  const res = await checkoutPost(origin, token, ({ selectedGateway }) => ({
    action: 'pay',
    gateway: selectedGateway,
    fields: { card_number: card, card_expiry: '12/34', card_cvc: '123', card_name: holder },
  }));
  const answer = (await res.json()) as { outcome?: string; view?: { status?: string } };
  if (res.status !== 200 || answer.outcome !== 'view' || answer.view?.status !== 'paid') throw new Error(`not paid: ${res.status} ${JSON.stringify(answer).slice(0, 300)}`);
}

export const payToken = (baseUrl: string, token: string, card: string = TEST_CARDS.approved) => statusOf(payWithCard(baseUrl, token, card));

export const cancelToken = (baseUrl: string, token: string) => statusOf(checkoutPost(baseUrl, token, { action: 'cancel' }));

export interface Paid {
  transaction: any;
  sale: any;
}

/** Creates a transaction, pays it with the approving test card and returns it with its sale. */
export async function paidTransaction(api: Client, body: Record<string, unknown>): Promise<Paid> {
  const created = await api.post('/transaction/', body);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const status = await payToken(api.url, created.body.token);
  if (status !== 200) throw new Error(`pay: ${status}`);
  const sales = await api.get(`/sale/?transaction_id=${created.body.id}`);
  if (sales.body?.count !== 1) throw new Error(`no sale for ${created.body.id}: ${sales.text}`);
  return { transaction: (await api.get(`/transaction/${created.body.id}/`)).body, sale: sales.body.results[0] };
}

/** A transaction body for one line of `price` in `currency`. */
export const priced = (currency: string, price: number, over: Record<string, unknown> = {}) => ({
  currency,
  products: [{ amount: 1, product: { name: 'Item', price } }],
  ...over,
});

/** A hosted page's CSRF token: from the screen's state, or the challenge's form when the page sends the customer there. */
export async function pageCsrf(baseUrl: string, token: string): Promise<string> {
  const html = await (await fetch(`${baseUrl}/pay/${token}/`)).text();
  return (/"csrf":"([^"]+)"/.exec(html) ?? /name="csrf" value="([^"]+)"/.exec(html))![1]!;
}

/** A JSON post to a hosted page's `path`, as the hydrated screen (and its challenge dialog) sends it. */
export async function screenPost(baseUrl: string, token: string, path: string, body: Record<string, unknown>) {
  const res = await fetch(new URL(path, baseUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-csrf-token': await pageCsrf(baseUrl, token) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}
