import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { REDIRECT_WAIT_MS } from '../../server/payments/redirect';
import { STRIPE_CARD_ID } from '../../server/payments/stripe/gateway';
import { listCalls } from '../../server/store/gateway-calls';
import type { StripeDouble } from '../stripe/server';
import { type Client, ENGINES, type TestService, testClock, transactionBody } from './harness';
import { pageCsrf, screenPost } from './pay';
import { publishableConfirm as confirmAtStripe, startStripeShop, type StartedStripeShop } from './stripe-shop';

// Stripe's Payment Element in our page, the server's half (docs/processors.md "Payment
// Element"), over real HTTP on both engines: the hydrated screen's pay post with Stripe's
// fields mounted makes a PaymentIntent without a card and gets its client_secret; the
// customer's browser confirms it at the double as Stripe.js does (under the publishable key,
// `publishableConfirm` in stripe-shop.ts); the call's return route, the webhook or the
// reconciliation reads the PaymentIntent again from the double by the id recorded at pay,
// and one payment is recorded whoever comes first. The browser's half: test/e2e/stripe-element.spec.ts.

const FORM = 'application/x-www-form-urlencoded';

describe.each(ENGINES)('Stripe Payment Element on %s', (engine) => {
  let t: TestService;
  let double: StripeDouble;
  let api: Client;
  let shop: StartedStripeShop;
  const clock = testClock();

  beforeAll(async () => {
    shop = await startStripeShop(engine, clock, 'Element shop');
    ({ t, double, api } = shop);
  });
  afterAll(() => shop?.close());

  const created = async (over: Record<string, unknown> = {}) => {
    const res = await api.post('/transaction/', transactionBody({ gateway_selected: false, return_url: 'https://shop.example/return', ...over }));
    expect(res.status, res.text).toBe(201);
    return res.body as { id: string; token: string };
  };
  const calls = (id: string) => listCalls(t.service.deps.database.db, id);
  const salesOf = async (id: string) => (await api.get(`/sale/?transaction_id=${id}`)).body.results as any[];
  const statusOf = async (id: string) => (await api.get(`/transaction/${id}/`)).body.status as string;

  /** The hydrated screen's pay post with Stripe's fields mounted. */
  const payWithElement = (token: string, fields: Record<string, string> = { hosted_fields: '1' }) =>
    screenPost(t.url, token, `/pay/${token}/`, { action: 'pay', gateway: STRIPE_CARD_ID, fields });

  /** What Stripe.js does on confirmPayment, under the shop's publishable key unless `key` says otherwise. */
  const publishableConfirm = (secret: string, number: string, returnUrl: string, key = shop.keys.publishable_key) => confirmAtStripe(double, key, secret, number, returnUrl);

  /** The pay post: the PaymentIntent made for the call, its secret and the call's return route. */
  async function started(tx: { id: string; token: string }) {
    const res = await payWithElement(tx.token);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ outcome: 'confirm', secret: expect.stringMatching(/^pi_[A-Za-z0-9]+_secret_[A-Za-z0-9]+$/) });
    const [call] = await calls(tx.id);
    return { call: call!, secret: res.body.secret as string, location: res.body.location as string, pi: res.body.secret.split('_secret_')[0] as string };
  }

  const back = (location: string, query = '') => fetch(`${location}${query}`, { redirect: 'manual' });

  it('offers the Payment Element: Stripe.js, its frames and its API in the page’s CSP; a page without Stripe has none of them', async () => {
    const tx = await created();
    const page = await fetch(`${t.url}/pay/${tx.token}/`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/script-src 'nonce-[^']+' https:\/\/js\.stripe\.com https:\/\/\*\.js\.stripe\.com;/);
    expect(csp).toContain('frame-src https://js.stripe.com https://*.js.stripe.com https://hooks.stripe.com;');
    expect(csp).toContain("connect-src 'self' https://api.stripe.com;");
    expect(page.headers.get('permissions-policy')).toContain('payment=(self "https://js.stripe.com" "https://*.js.stripe.com" "https://hooks.stripe.com")');
    // The page's state names Stripe.js and the publishable key for the glue (never the secret key).
    const html = await page.text();
    expect(html).toContain('"script":"https://js.stripe.com/v3/"');
    expect(html).toContain(`"key":"${shop.keys.publishable_key}"`);
    expect(html).not.toContain(shop.keys.secret_key);

    const other = await t.newEnvironment('No Stripe shop');
    const plain = await other.post('/transaction/', transactionBody({ return_url: 'https://shop.example/return' }));
    const otherCsp = (await fetch(plain.body.payment_url)).headers.get('content-security-policy')!;
    expect(otherCsp).not.toContain('stripe.com');
  });

  it('approved: the PaymentIntent is made as documented, the return reads it from Stripe, and the webhook after it changes nothing', async () => {
    const tx = await created();
    const { call, secret, location, pi } = await started(tx);
    expect(location).toBe(`${t.url}/pay/${tx.token}/return/${call.reference}/`);
    expect(call).toMatchObject({ kind: 'pay', state: 'pending', gateway_id: STRIPE_CARD_ID, processor_id: pi });
    const create = double.requests.filter((r) => r.path === '/v1/payment_intents' && r.method === 'POST');
    expect(create.at(-1)).toMatchObject({
      idempotencyKey: call.reference,
      params: { amount: '1700', currency: 'eur', capture_method: 'automatic', allowed_payment_method_types: ['card'], metadata: { reference: call.reference } },
    });
    // No card and no confirmation from our server: Stripe.js confirms it in the browser.
    expect(create.at(-1)!.params).not.toHaveProperty('payment_method');
    expect(create.at(-1)!.params).not.toHaveProperty('confirm');
    // The secret is handed to the page, never stored.
    expect(JSON.stringify(call.request)).not.toContain(secret);

    double.holdEvents = true;
    const confirmed = await publishableConfirm(secret, '4242424242424242', location);
    expect(confirmed).toMatchObject({ status: 200, cors: '*', body: { status: 'succeeded' } });
    const returned = await back(location, `?payment_intent=${pi}&payment_intent_client_secret=${secret}&redirect_status=succeeded`);
    expect(returned.status).toBe(303);
    expect(returned.headers.get('location')).toMatch(/^https:\/\/shop\.example\/return.*status=D/);
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', amount: 17, card: { brand: 'visa', last4: '4242' }, authentication: null }]);
    // Our server asked Stripe for the PaymentIntent by the id recorded at pay.
    expect(double.requests.some((r) => r.method === 'GET' && r.path === `/v1/payment_intents/${pi}` && r.key === shop.keys.secret_key)).toBe(true);

    const [event] = await double.deliverEvents();
    expect(event).toMatchObject({ type: 'payment_intent.succeeded', status: 204 });
    await back(location);
    expect(await salesOf(tx.id)).toHaveLength(1);
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['succeeded']);
  });

  it('the return and payment_intent.succeeded at once make one payment', async () => {
    const tx = await created();
    const { secret, location } = await started(tx);
    double.holdEvents = true;
    await publishableConfirm(secret, '4242424242424242', location);
    const [returns, deliveries] = await Promise.all([Promise.all([back(location), back(location), back(location)]), double.deliverEvents()]);
    expect(returns.map((r) => r.status)).toEqual([303, 303, 303]);
    expect(deliveries.map((d) => d.status)).toEqual([204]);
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', amount: 17 }]);
    expect(await statusOf(tx.id)).toBe('D');
  });

  it('a webhook alone records it, for a customer who never came back; a hold is held', async () => {
    const tx = await created({ authorize: true });
    const { secret, location, call } = await started(tx);
    expect(double.requests.filter((r) => r.idempotencyKey === call.reference)[0]!.params).toMatchObject({ capture_method: 'manual' });
    await publishableConfirm(secret, '4242424242424242', location);
    await double.settled();
    expect(double.deliveries.at(-1)).toMatchObject({ type: 'payment_intent.amount_capturable_updated', status: 204 });
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'held', amount: 17 }]);
  });

  it('declined: the attempt is ended at Stripe before it is recorded, and the page offers the methods again', async () => {
    const tx = await created();
    const { secret, location, pi } = await started(tx);
    const declined = await publishableConfirm(secret, '4000000000000002', location);
    expect(declined).toMatchObject({ status: 402, cors: '*', body: { error: { code: 'card_declined', decline_code: 'generic_decline' } } });
    const returned = await back(location);
    expect(returned.headers.get('location')).toBe(`/pay/${tx.token}/?declined=1&gateway=${STRIPE_CARD_ID}`);
    expect(double.requests.some((r) => r.path === `/v1/payment_intents/${pi}/cancel`)).toBe(true);
    expect(double.books.paymentIntents.get(pi)!.status).toBe('canceled');
    // The secret the page had can no longer pay it.
    const again = await publishableConfirm(secret, '4242424242424242', location);
    expect(again).toMatchObject({ status: 400, body: { error: { code: 'payment_intent_unexpected_state' } } });
    expect(await salesOf(tx.id)).toEqual([]);
    expect(await statusOf(tx.id)).toBe('N');
    // Another attempt, another PaymentIntent, paid.
    const next = await started(tx);
    expect(next.pi).not.toBe(pi);
    await publishableConfirm(next.secret, '5555555555554444', next.location);
    await back(next.location);
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', card: { brand: 'mastercard', last4: '4444' } }]);
  });

  it('3-D Secure at the issuer’s page: back on the return route, paid and recorded as authenticated by challenge, as Stripe says', async () => {
    const tx = await created();
    const { secret, location, pi } = await started(tx);
    const confirmed = await publishableConfirm(secret, '4000002760003184', location);
    expect(confirmed.body).toMatchObject({ status: 'requires_action', next_action: { type: 'redirect_to_url', redirect_to_url: { url: `${double.url}/test/3ds/${pi}` } } });
    // Back before authenticating (the browser's Back): nothing is decided, nothing ended.
    expect((await back(location)).headers.get('location')).toBe(`/pay/${tx.token}/`);
    expect(double.books.paymentIntents.get(pi)!.status).toBe('requires_action');
    const bank = await fetch(`${double.url}/test/3ds/${pi}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM }, body: 'action=complete' });
    const to = bank.headers.get('location')!;
    expect(to.startsWith(location)).toBe(true);
    await back(to);
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', authentication: { status: 'authenticated', method: 'challenge' } }]);
  });

  it('3-D Secure failed at the issuer’s page: back on the return route, declined, nothing recorded as paid, and the customer can pay again', async () => {
    const tx = await created();
    const { secret, location, pi } = await started(tx);
    const confirmed = await publishableConfirm(secret, '4000002760003184', location);
    expect(confirmed.body).toMatchObject({ status: 'requires_action' });
    const bank = await fetch(`${double.url}/test/3ds/${pi}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM }, body: 'action=fail' });
    const to = bank.headers.get('location')!;
    expect(to.startsWith(location)).toBe(true);
    expect((await back(to)).headers.get('location')).toBe(`/pay/${tx.token}/?declined=1&gateway=${STRIPE_CARD_ID}`);
    expect(await salesOf(tx.id)).toEqual([]);
    expect(await statusOf(tx.id)).toBe('N');
    const next = await started(tx);
    await publishableConfirm(next.secret, '4242424242424242', next.location);
    await back(next.location);
    expect(await salesOf(tx.id)).toMatchObject([{ status: 'captured', card: { last4: '4242' } }]);
  });

  it('nothing the browser says is believed: another PaymentIntent named in the query, a return before confirming, card fields, another secret', async () => {
    const paid = await created();
    const first = await started(paid);
    await publishableConfirm(first.secret, '4242424242424242', first.location);
    await back(first.location);

    const tx = await created();
    const { secret, location, pi } = await started(tx);
    // A return naming the paid PaymentIntent of another payment: ours is read, unconfirmed, and ended.
    const tampered = await back(location, `?payment_intent=${first.pi}&payment_intent_client_secret=${first.secret}&redirect_status=succeeded`);
    expect(tampered.headers.get('location')).toBe(`/pay/${tx.token}/?declined=1&gateway=${STRIPE_CARD_ID}`);
    expect(await salesOf(tx.id)).toEqual([]);
    expect(double.books.paymentIntents.get(pi)!.status).toBe('canceled');
    // Another transaction's return route is not this page's: not found.
    expect((await back(`${t.url}/pay/${tx.token}/return/${first.call.reference}/`)).status).toBe(404);

    // The double refuses a client_secret of another PaymentIntent, as Stripe does.
    const next = await started(tx);
    const wrong = await publishableConfirm(`${next.pi}_secret_${secret.split('_secret_')[1]}`, '4242424242424242', next.location);
    expect(wrong).toMatchObject({ status: 400, body: { error: { param: 'client_secret' } } });
    // And a publishable key cannot use the secret key's API.
    const listed = await fetch(`${double.url}/v1/payment_intents/${next.pi}/capture`, { method: 'POST', headers: { 'content-type': FORM }, body: new URLSearchParams({ key: shop.keys.publishable_key }) });
    expect(listed.status).toBe(401);
    // Card fields are never taken by our server: a 400 problem naming them, nothing recorded, nothing sent to Stripe.
    const before = double.requests.length;
    await back(next.location);
    const recorded = await calls(tx.id);
    const fields = await fetch(`${t.url}/pay/${tx.token}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': await pageCsrf(t.url, tx.token) },
      body: JSON.stringify({ action: 'pay', gateway: STRIPE_CARD_ID, fields: { hosted_fields: '1', card_number: '4242424242424242', card_cvc: '123' } }),
    });
    expect(fields.status).toBe(400);
    expect(fields.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await fields.json()).toMatchObject({ type: 'urn:problem:invalid-request', status: 400, errors: [{ path: 'fields.card_number' }, { path: 'fields.card_cvc' }] });
    expect(await calls(tx.id)).toEqual(recorded);
    expect(double.requests.slice(before).filter((r) => r.path === '/v1/payment_intents' && r.method === 'POST')).toEqual([]);
  });

  it('a customer who never comes back: after the wait the reconciliation ends the PaymentIntent at Stripe, and the payment stays open', async () => {
    const tx = await created();
    const { pi } = await started(tx);
    clock.advance(REDIRECT_WAIT_MS + 1000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    expect(double.books.paymentIntents.get(pi)!.status).toBe('canceled');
    expect((await calls(tx.id)).map((c) => c.state)).toEqual(['failed']);
    expect(await statusOf(tx.id)).toBe('N');
  });
});
