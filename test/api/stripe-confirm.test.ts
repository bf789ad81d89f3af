import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { getAuthorization } from '../../server/store/sales';
import { listCalls } from '../../server/store/gateway-calls';
import type { StripeDouble } from '../stripe/server';
import { type Client, ENGINES, type TestService, testClock } from './harness';
import { authenticate, CONFIRM, csrfOf, DAY, FORM, page, press, SAVED, savedCard, toBank } from './stripe-confirm-steps';
import { doubleSdk, startStripeShop, type StartedStripeShop, stripeRefusal } from './stripe-shop';

// A saved Stripe card charged off-session that the issuer declines until the customer
// authenticates (Stripe's test card 4000 0027 6000 3184, `authentication_required`), end to
// end over real HTTP (docs/processors.md "Payments that need the customer"): the sale is
// recorded declined with `failure: authentication_required` and a `confirm_url`, which its
// `sale.declined` event carries; the hosted page there confirms the PaymentIntent again and
// sends the customer to the double's stand-in 3-D Secure page; back on our return route
// the PaymentIntent is read again by its id and the payment recorded once, however many
// returns arrive, and by Stripe's `payment_intent.succeeded` if the customer never returns. A forged return, a tampered or expired link, and what the double refuses.


let serial = 0;

describe.each(ENGINES)('Stripe charges that need the customer on %s', (engine) => {
  let t: TestService;
  let double: StripeDouble;
  let api: Client;
  let shop: StartedStripeShop;
  const clock = testClock();

  beforeAll(async () => {
    shop = await startStripeShop(engine, clock, 'Confirm shop');
    ({ t, double, api } = shop);
  });
  afterAll(() => shop?.close());

  const saved = async (action: string) => (await savedCard(shop, action, `C${++serial}`)).id;

  /** An off-session charge that needs the customer: the 402, and its sale as the API shows it. */
  async function needingCustomer(amount = 12.5) {
    const authorization = await saved('auth_always');
    const charged = await api.post(`/authorization/${authorization}/charge/`, { amount, currency: 'EUR', description: 'April box' });
    expect(charged.status, charged.text).toBe(402);
    const sale = (await api.get(`/sale/?authorization_id=${authorization}`)).body.results[0];
    const [call] = (await listCalls(t.service.deps.database.db, authorization)).filter((c) => c.kind === 'charge');
    return { authorization, charged, sale, call: call!, token: CONFIRM.exec(sale.confirm_url ?? '')?.[1] ?? '' };
  }

  const events = async (type: string, object: string) => (await api.get(`/event/?type=${type}&object_id=${object}`)).body.results;

  it('records the charge declined with authentication_required, and its sale.declined event carries the confirm_url', async () => {
    const { charged, sale, call, token } = await needingCustomer();
    expect(charged.body.detail).toContain('confirm_url');
    expect(sale).toMatchObject({ status: 'declined', failure: 'authentication_required', captured: 0, card: { last4: '3184' }, confirm_url: `${t.url}/pay/confirm/${token}/` });
    const [event] = await events('sale.declined', sale.id);
    expect(event.data).toMatchObject({ id: sale.id, failure: 'authentication_required', confirm_url: sale.confirm_url });
    // Stripe kept the PaymentIntent for the customer: ours, declined `authentication_required`, recorded on the call.
    const pi = double.books.paymentIntents.get(call.processor_id!)!;
    expect(pi).toMatchObject({ status: 'requires_payment_method', metadata: { reference: call.reference }, last_payment_error: { code: 'authentication_required' } });
    // An ordinary decline has no link.
    const other = await saved('charge_fail');
    expect((await api.post(`/authorization/${other}/charge/`, { amount: 3, currency: 'EUR' })).status).toBe(402);
    expect((await api.get(`/sale/?authorization_id=${other}`)).body.results[0]).toMatchObject({ failure: 'declined', confirm_url: null });
  });

  it('the customer confirms on the page and authenticates at the bank: two returns at once record one payment', async () => {
    const { authorization, sale, call, token } = await needingCustomer(20);
    const shown = await page(sale.confirm_url);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('content-security-policy')).toContain(`form-action 'self'`);
    const html = await shown.text();
    for (const text of ['Confirm shop', '€20.00', 'April box', '3184', 'Confirm payment']) expect(html).toContain(text);

    const bank = await toBank(t.url, sale.confirm_url);
    expect(bank).toBe(`${double.url}/test/3ds/${call.processor_id}`);
    const confirm = double.requests.find((r) => r.path === `/v1/payment_intents/${call.processor_id}/confirm`)!;
    const pm = (await getAuthorization(t.service.deps.database.db, null, authorization))!.gateway_reference;
    expect(confirm.params).toEqual({ return_url: `${t.url}/pay/confirm/${token}/return/`, payment_method: pm, expand: ['latest_charge'] });

    const returnUrl = await authenticate(bank, 'complete');
    expect(returnUrl).toMatch(new RegExp(`^${t.url}/pay/confirm/${token}/return/\\?payment_intent=${call.processor_id}&`));
    const answers = await Promise.all([page(returnUrl), page(returnUrl)]);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('Payment confirmed');
    }
    const now = (await api.get(`/sale/${sale.id}/`)).body;
    expect(now).toMatchObject({ status: 'captured', captured: 20, failure: null, confirm_url: null });
    expect(now.operations.filter((o: { kind: string }) => o.kind === 'charge')).toHaveLength(1);
    expect(await events('sale.captured', sale.id)).toHaveLength(1);
    expect(await events('authorization.charged', authorization)).toHaveLength(1);

    // Used: the link shows the payment, and its button is gone; a post changes nothing.
    const again = await (await page(`${t.url}/pay/confirm/${token}/`)).text();
    expect(again).toContain('Payment confirmed');
    expect(again).not.toContain('name="csrf"');
    expect((await press(t.url, `${t.url}/pay/confirm/${token}/`, csrfOf(html))).status).toBe(409);
    expect((await api.get(`/sale/${sale.id}/`)).body.operations).toHaveLength(now.operations.length);
  });

  it('a customer who authenticates but never comes back: Stripe’s payment_intent.succeeded records the payment, once', async () => {
    const { sale } = await needingCustomer(7);
    const bank = await toBank(t.url, sale.confirm_url);
    double.holdEvents = true;
    const returnUrl = await authenticate(bank, 'complete');
    const delivered = await double.deliverEvents();
    expect(delivered.filter((d) => d.type === 'payment_intent.succeeded').map((d) => d.status)).toEqual([204]);
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ status: 'captured', captured: 7, failure: null });
    // Back after all: the page shows it, nothing more is recorded.
    expect(await (await page(returnUrl)).text()).toContain('Payment confirmed');
    expect(await events('sale.captured', sale.id)).toHaveLength(1);
  });

  it('a return that says it succeeded is not believed; a failed authentication leaves the link open', async () => {
    const { sale, call, token } = await needingCustomer();
    const bank = await toBank(t.url, sale.confirm_url);
    // Forged: the bank has not answered, whatever the query says.
    const forged = await page(`${t.url}/pay/confirm/${token}/return/?payment_intent=${call.processor_id}&redirect_status=succeeded`);
    expect(forged.status).toBe(200);
    expect(await forged.text()).toContain('still waiting for your bank');
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ failure: 'authentication_required', captured: 0 });

    const failed = await page(await authenticate(bank, 'fail'));
    expect(await failed.text()).toContain('Your bank did not confirm the payment');
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ failure: 'authentication_required', captured: 0, confirm_url: sale.confirm_url });
    // Tried again: the bank's page again, and this time it pays.
    const paid = await page(await authenticate(await toBank(t.url, sale.confirm_url), 'complete'));
    expect(await paid.text()).toContain('Payment confirmed');
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ status: 'captured', captured: 12.5 });
  });

  it('a tampered, unknown or expired link, and a post not from the page, are refused clearly (never a 500)', async () => {
    const { sale, call, token } = await needingCustomer();
    // Its last character changed (to one it is not: a random token ends in x one time in 64).
    const tampered = `${token.slice(0, -1)}${token.endsWith('x') ? 'y' : 'x'}`;
    for (const bad of [`cfm_${'A'.repeat(32)}`, tampered, 'cfm_short', token.replace('cfm_', 'sav_')]) {
      const res = await page(`${t.url}/pay/confirm/${bad}/`);
      expect(res.status, bad).toBe(404);
      expect(await res.text()).toContain('lang=');
    }
    const html = await (await page(sale.confirm_url)).text();
    expect((await press(t.url, sale.confirm_url, 'forged')).status).toBe(403);
    const crossSite = await fetch(sale.confirm_url, { method: 'POST', redirect: 'manual', headers: { 'content-type': FORM, origin: 'https://evil.example' }, body: new URLSearchParams({ csrf: csrfOf(html) }) });
    expect(crossSite.status).toBe(403);
    expect(double.requests.some((r) => r.path === `/v1/payment_intents/${call.processor_id}/confirm`)).toBe(false);

    clock.advance(8 * DAY);
    const expired = await page(sale.confirm_url);
    expect(expired.status).toBe(200);
    expect(await expired.text()).toContain('This link can no longer be used');
    expect((await press(t.url, sale.confirm_url, csrfOf(html))).status).toBe(409);
    expect((await api.get(`/sale/${sale.id}/`)).body).toMatchObject({ failure: 'authentication_required', captured: 0 });
  });

  // The charge's answer lost (the connection cut once Stripe had declined it): the lookup
  // learns it from the create sent again under its key (within 23 hours) or from the list
  // of PaymentIntents (later), and records it as the live answer would have, link included.
  it.each([
    ['the create replayed under its key', 10 * 60_000],
    ['the PaymentIntents listed, a day later', DAY],
  ])('a lost answer that needed the customer gets its confirm link all the same: %s', async (_how, after) => {
    // Stripe's clock where the service's is (earlier tests moved the service's on): the list is by Stripe's `created`.
    double.books.advance(Math.floor(clock.now().getTime() / 1000) - double.books.now());
    const authorization = await saved('auth_always');
    double.loseNext({ method: 'POST', path: /^\/v1\/payment_intents$/ });
    const charged = await api.post(`/authorization/${authorization}/charge/`, { amount: 9, currency: 'EUR' });
    expect(charged.status, charged.text).toBe(202);
    const pending = (await api.get(`/sale/?authorization_id=${authorization}`)).body.results[0];
    expect(pending).toMatchObject({ status: 'pending', confirm_url: null });

    clock.advance(after);
    double.books.advance(after / 1000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    const sale = (await api.get(`/sale/${pending.id}/`)).body;
    expect(sale).toMatchObject({ status: 'declined', failure: 'authentication_required', captured: 0, confirm_url: expect.stringMatching(CONFIRM) });
    const [event] = await events('sale.declined', sale.id);
    expect(event.data).toMatchObject({ failure: 'authentication_required', confirm_url: sale.confirm_url });
    // The link leads to the PaymentIntent Stripe kept for the customer.
    const [call] = (await listCalls(t.service.deps.database.db, authorization)).filter((c) => c.kind === 'charge');
    expect(call!.processor_id).toMatch(/^pi_/);
    expect(await toBank(t.url, sale.confirm_url)).toBe(`${double.url}/test/3ds/${call!.processor_id}`);
  });

  it('the double refuses what Stripe refuses: an unknown parameter to confirm, and confirming a PaymentIntent already paid', async () => {
    const { sale, call } = await needingCustomer();
    await page(await authenticate(await toBank(t.url, sale.confirm_url), 'complete'));
    const sdk = doubleSdk(double, shop.keys.secret_key);
    const unknown = await stripeRefusal(sdk.paymentIntents.confirm(call.processor_id!, { return_url: SAVED, payment_method_types: ['card'] } as never));
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'payment_method_types' });
    const paid = await stripeRefusal(sdk.paymentIntents.confirm(call.processor_id!, { return_url: SAVED }));
    expect(paid).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
    // Off-session with the same card: declined again, as Stripe's 4000 0027 6000 3184 always is.
    const pm = double.books.paymentIntents.get(call.processor_id!)!.payment_method;
    const customer = double.books.paymentMethods.get(pm)!.customer;
    const again = await stripeRefusal(sdk.paymentIntents.create({ amount: 500, currency: 'eur', customer, payment_method: pm, off_session: true, confirm: true }));
    expect(again).toMatchObject({ statusCode: 402, code: 'authentication_required' });
  });
});
