import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import type { StripeDouble } from '../stripe/server';
import { payWithCard } from './pay';
import { type Client, ENGINES, type TestService, testClock } from './harness';
import { authenticate, CONFIRM, DAY, page, SAVED, savedCard, toBank } from './stripe-confirm-steps';
import { doubleSdk, startStripeShop, type StartedStripeShop, stripeRefusal } from './stripe-shop';

// A subscription's renewal that the issuer declines off-session until the customer
// authenticates (Stripe's 4000 0027 6000 3184, `authentication_required`), end to end over
// real HTTP against the Stripe double (docs/subscriptions.md "Renewals that need the
// customer"): the failed attempt's `subscription.charge_failed` event, the period and its
// sale carry the `confirm_url`; no retry while the link is open; confirmed, the period is
// paid once (two returns, or a return and Stripe's webhook, at once) with
// `subscription.charged`, and the next period is charged off-session again; expired
// unused, one last off-session attempt, then the subscription stops. Each with a request
// the double must refuse.


let serial = 0;

describe.each(ENGINES)('Stripe renewals that need the customer on %s', (engine) => {
  let t: TestService;
  let double: StripeDouble;
  let api: Client;
  let shop: StartedStripeShop;
  const clock = testClock();

  beforeAll(async () => {
    shop = await startStripeShop(engine, clock, 'Renewal shop');
    ({ t, double, api } = shop);
  });
  afterAll(() => shop?.close());

  const runRenewals = async () => {
    while ((await t.service.jobs.runOnce(JOB_NAMES.subscriptions)) > 0);
  };
  const events = async (type: string, object: string) => (await api.get(`/event/?type=${type}&object_id=${object}`)).body.results;
  /** The off-session PaymentIntents the renewals of `sub` created at the double. */
  const renewalsAt = (sub: string) => double.requests.filter((r) => r.path === '/v1/payment_intents' && String(r.idempotencyKey).startsWith(`subscription:${sub}:`));

  /** A monthly subscription on the card that always asks for 3-D Secure, its first period declined `authentication_required`. */
  async function needingCustomer() {
    const request = await savedCard(shop, 'auth_always', `R${++serial}`);
    const plan = await api.post('/plan/', { name: 'Box', amount: 9.99, currency: 'EUR', interval: 'month' });
    const sub = (await api.post('/subscription/', { plan: plan.body.id, authorization: request.id })).body.id as string;
    expect((await api.post(`/subscription/${sub}/start/`, undefined)).status).toBe(200);
    await runRenewals();
    const body = (await api.get(`/subscription/${sub}/`)).body;
    const period = body.charges[0];
    return { sub, body, period, token: CONFIRM.exec(period.confirm_url ?? '')?.[1] ?? '', started: clock.now() };
  }

  /** The page's button, then the stand-in 3-D Secure page's: the return URL. */
  const authenticated = async (confirmUrl: string) => authenticate(await toBank(t.url, confirmUrl), 'complete');

  it('a renewal whose answer was lost: reconciliation learns it needs the customer and gives the period its confirm_url, as the live answer would have', async () => {
    const request = await savedCard(shop, 'auth_always', `R${++serial}`);
    const plan = await api.post('/plan/', { name: 'Box', amount: 9.99, currency: 'EUR', interval: 'month' });
    const sub = (await api.post('/subscription/', { plan: plan.body.id, authorization: request.id })).body.id as string;
    double.loseNext({ method: 'POST', path: /^\/v1\/payment_intents$/ });
    expect((await api.post(`/subscription/${sub}/start/`, undefined)).status).toBe(200);
    await runRenewals();
    expect(renewalsAt(sub).map((r) => r.status)).toEqual([402]);
    expect((await api.get(`/subscription/${sub}/`)).body.charges[0]?.confirm_url ?? null).toBeNull();

    clock.advance(10 * 60_000);
    await t.service.jobs.runOnce(JOB_NAMES.reconciliation);
    const period = (await api.get(`/subscription/${sub}/`)).body.charges[0];
    expect(period).toMatchObject({ period: 1, status: 'failed', failure: 'authentication_required', confirm_url: expect.stringMatching(CONFIRM) });
    const [failed] = await events('subscription.charge_failed', sub);
    expect(failed.data.charges[0]).toMatchObject({ failure: 'authentication_required', confirm_url: period.confirm_url });
  });

  it('the declined renewal’s charge_failed event, period and sale carry the confirm_url; no retry while it is open; expired unused, one last attempt, then stopped', async () => {
    const { sub, body, period, token, started } = await needingCustomer();
    expect(period).toMatchObject({ period: 1, status: 'failed', attempts: 1, failure: 'authentication_required', confirm_url: `${t.url}/pay/confirm/${token}/`, transaction: null });
    // The next attempt when the link expires, 7 days after the attempt (made just before `started`).
    expect(body.status).toBe('past_due');
    expect(started.getTime() + 7 * DAY - Date.parse(body.next_charge_date)).toBeGreaterThanOrEqual(0);
    expect(started.getTime() + 7 * DAY - Date.parse(body.next_charge_date)).toBeLessThan(60_000);
    const [failed] = await events('subscription.charge_failed', sub);
    expect(failed.data.charges[0]).toMatchObject({ failure: 'authentication_required', confirm_url: period.confirm_url });
    expect(await events('subscription.past_due', sub)).toHaveLength(1);
    const sale = (await api.get(`/sale/${period.sale}/`)).body;
    expect(sale).toMatchObject({ status: 'declined', failure: 'authentication_required', captured: 0, amount: 9.99, confirm_url: period.confirm_url });
    expect(renewalsAt(sub).map((r) => [r.params.off_session, r.status])).toEqual([['true', 402]]);

    // Past every day a decline would have been retried on: nothing asked of the bank.
    clock.advance(6 * DAY);
    await runRenewals();
    expect(renewalsAt(sub)).toHaveLength(1);
    expect((await page(period.confirm_url)).status).toBe(200);

    // The link expires unused: one last attempt off-session, declined again, and the subscription stops.
    clock.advance(DAY + 1000);
    await runRenewals();
    expect(renewalsAt(sub).map((r) => [r.params.off_session, r.status])).toEqual([['true', 402], ['true', 402]]);
    const after = (await api.get(`/subscription/${sub}/`)).body;
    expect(after).toMatchObject({ status: 'stopped', stop_reason: 'payment_failed', next_charge_date: null });
    expect(after.charges[0]).toMatchObject({ status: 'failed', attempts: 2, failure: 'authentication_required', confirm_url: null, sale: period.sale });
    expect(await (await page(period.confirm_url)).text()).toContain('This link can no longer be used');
    expect(await events('subscription.stopped', sub)).toHaveLength(1);
    // The double refuses a renewal reference reused with another body, as Stripe refuses a reused Idempotency-Key.
    const first = renewalsAt(sub)[0]!;
    const reused = await stripeRefusal(
      doubleSdk(double, shop.keys.secret_key).paymentIntents.create({ amount: 1, currency: 'eur', off_session: true, confirm: true, payment_method: String(first.params.payment_method), customer: String(first.params.customer) }, { idempotencyKey: String(first.idempotencyKey) }),
    );
    expect(reused).toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError' });
  });

  it('confirmed by the customer: two returns at once pay the period once, subscription.charged, active, and the next period off-session again', async () => {
    const { sub, period, token } = await needingCustomer();
    const returnUrl = await authenticated(period.confirm_url);
    expect(returnUrl.startsWith(`${t.url}/pay/confirm/${token}/return/`)).toBe(true);
    const answers = await Promise.all([page(returnUrl), page(returnUrl)]);
    for (const res of answers) expect(await res.text()).toContain('Payment confirmed');

    const body = (await api.get(`/subscription/${sub}/`)).body;
    expect(body).toMatchObject({ status: 'active', failed_attempts: 0 });
    expect(body.charges).toHaveLength(1);
    expect(body.charges[0]).toMatchObject({ period: 1, status: 'charged', failure: null, confirm_url: null, sale: period.sale });
    expect(body.charges[0].transaction).not.toBeNull();
    expect(await events('subscription.charged', sub)).toHaveLength(1);
    const sale = (await api.get(`/sale/${period.sale}/`)).body;
    expect(sale).toMatchObject({ status: 'captured', captured: 9.99, failure: null, confirm_url: null, transaction_id: body.charges[0].transaction });
    expect(sale.operations.filter((o: { kind: string }) => o.kind === 'charge')).toHaveLength(1);
    expect((await api.get(`/transaction/${body.charges[0].transaction}/`)).body).toMatchObject({ total_price: 9.99, order_id: null });

    // The next period: charged off-session on its day, as any renewal.
    expect(renewalsAt(sub)).toHaveLength(1);
    clock.advance(32 * DAY);
    await runRenewals();
    expect(renewalsAt(sub).map((r) => [r.params.off_session, r.idempotencyKey])).toEqual([
      ['true', `subscription:${sub}:period:1:attempt:1`],
      ['true', `subscription:${sub}:period:2:attempt:1`],
    ]);
    // This card asks every time: period 2 has a link of its own.
    const later = (await api.get(`/subscription/${sub}/`)).body.charges[1];
    expect(later).toMatchObject({ period: 2, status: 'failed', failure: 'authentication_required' });
    expect(later.confirm_url).not.toBe(period.confirm_url);
    // The double refuses confirming the PaymentIntent already paid, as Stripe does.
    const pi = String(renewalsAt(sub)[0]!.params.payment_method);
    const paidIntent = [...double.books.paymentIntents.values()].find((p) => p.payment_method === pi && p.status === 'succeeded')!;
    const again = await stripeRefusal(doubleSdk(double, shop.keys.secret_key).paymentIntents.confirm(paidIntent.id, { return_url: SAVED }));
    expect(again).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
  });

  it('a return and Stripe’s payment_intent.succeeded at once: one payment of the period', async () => {
    const { sub, period } = await needingCustomer();
    double.holdEvents = true;
    const returnUrl = await authenticated(period.confirm_url);
    const [delivered, returned] = await Promise.all([double.deliverEvents(), page(returnUrl)]);
    double.holdEvents = false;
    expect(delivered.filter((d) => d.type === 'payment_intent.succeeded').map((d) => d.status)).toEqual([204]);
    expect(await returned.text()).toContain('Payment confirmed');
    expect(await events('subscription.charged', sub)).toHaveLength(1);
    const body = (await api.get(`/subscription/${sub}/`)).body;
    expect(body).toMatchObject({ status: 'active' });
    expect(body.charges[0]).toMatchObject({ status: 'charged' });
    expect((await api.get(`/sale/${period.sale}/`)).body.operations.filter((o: { kind: string }) => o.kind === 'charge')).toHaveLength(1);
    // The double refuses an unknown parameter on confirm, as Stripe does.
    const unknown = await stripeRefusal(doubleSdk(double, shop.keys.secret_key).paymentIntents.confirm('pi_unknown', { return_url: SAVED, payment_method_types: ['card'] } as never));
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'payment_method_types' });
  });

  it('a new card given on payment_url while the link is open: charged at once, and the link closed (never both paid)', async () => {
    const { sub, body, period } = await needingCustomer();
    const paid = await payWithCard(t.url, /\/pay\/([^/]+)\//.exec(body.payment_url)![1]!);
    expect(paid.status, await paid.clone().text()).toBe(200);
    await runRenewals();
    const after = (await api.get(`/subscription/${sub}/`)).body;
    expect(after).toMatchObject({ status: 'active', failed_attempts: 0 });
    expect(after.charges[0]).toMatchObject({ period: 1, status: 'charged', attempts: 2, confirm_url: null });
    expect(after.charges[0].sale).not.toBe(period.sale);
    expect(await (await page(period.confirm_url)).text()).toContain('This link can no longer be used');
    expect((await api.get(`/sale/${period.sale}/`)).body).toMatchObject({ status: 'declined', captured: 0 });
    expect(await events('subscription.charged', sub)).toHaveLength(1);
    // Nothing asked of Stripe for the new card (a sandbox card); the double still refuses an unknown parameter on a PaymentIntent.
    expect(renewalsAt(sub)).toHaveLength(1);
    const unknown = await stripeRefusal(doubleSdk(double, shop.keys.secret_key).paymentIntents.create({ amount: 100, currency: 'eur', surprise: 1 } as never));
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'surprise' });
  });
});
