import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedEvent } from '../stripe/events';
import { type StripeDouble, startStripeDouble } from '../stripe/server';
import { stripeRefusal } from './stripe-shop';

// Contract tests of the Stripe test double, through the official SDK: what the connector
// relies on, each with a request the double must refuse as Stripe refuses it (status,
// error type and code), so that the double stays as strict as Stripe.

const API_VERSION = '2026-10-28.endive';
let double: StripeDouble;
let stripe: Stripe;

const client = (key: string) => {
  const url = new URL(double.url);
  return new Stripe(key, { apiVersion: API_VERSION, host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false });
};

const refusal = stripeRefusal;

const authorize = (key: string, amount = 2000) =>
  stripe.paymentIntents.create(
    { amount, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, capture_method: 'manual', allowed_payment_method_types: ['card'], metadata: { reference: key } },
    { idempotencyKey: key },
  );

beforeAll(async () => {
  double = await startStripeDouble();
  stripe = client('sk_test_contract');
});
afterAll(() => double.close());

describe('the Stripe test double (official SDK)', () => {
  it('creates and confirms a PaymentIntent as Stripe returns it, and refuses an unknown parameter', async () => {
    const pi = await stripe.paymentIntents.create(
      { amount: 1099, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'], metadata: { reference: 'c-1' }, expand: ['latest_charge'] },
      { idempotencyKey: 'c-1' },
    );
    expect(pi).toMatchObject({ object: 'payment_intent', status: 'succeeded', amount: 1099, amount_received: 1099, currency: 'eur', metadata: { reference: 'c-1' } });
    const charge = pi.latest_charge as Stripe.Charge;
    expect(charge).toMatchObject({ object: 'charge', captured: true, payment_intent: pi.id, payment_method_details: { card: { brand: 'visa', last4: '4242' } } });
    expect(double.requests.at(-1)).toMatchObject({ stripeVersion: API_VERSION, idempotencyKey: 'c-1', params: { expand: ['latest_charge'], metadata: { reference: 'c-1' } } });

    const error = await refusal(stripe.paymentIntents.create({ amount: 1099, currency: 'eur', colour: 'blue' } as Stripe.PaymentIntentCreateParams));
    expect(error).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', code: 'parameter_unknown', param: 'colour' });
    // The name that 2026-10-28.endive replaced is unknown under it.
    const renamed = await refusal(stripe.paymentIntents.create({ amount: 1099, currency: 'eur', payment_method_types: ['card'] } as Stripe.PaymentIntentCreateParams));
    expect(renamed).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'payment_method_types' });
    const nested = await refusal(stripe.paymentIntents.create({ amount: 1099, currency: 'eur', automatic_payment_methods: { enabled: true, colour: 'x' } } as Stripe.PaymentIntentCreateParams));
    expect(nested).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'automatic_payment_methods[colour]' });
  });

  it('takes statement_descriptor_suffix on a card PaymentIntent and refuses statement_descriptor on one, and a suffix Stripe would refuse', async () => {
    const card = { amount: 1099, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] };
    expect(await stripe.paymentIntents.create({ ...card, statement_descriptor_suffix: 'ORDER 42' })).toMatchObject({ status: 'succeeded', statement_descriptor_suffix: 'ORDER 42' });
    const whole = await refusal(stripe.paymentIntents.create({ ...card, statement_descriptor: 'SHOP EXAMPLE' }));
    expect(whole).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', param: 'statement_descriptor' });
    // Without allowed_payment_method_types a PaymentIntent is a card one too.
    expect(await refusal(stripe.paymentIntents.create({ amount: 1099, currency: 'eur', statement_descriptor: 'SHOP EXAMPLE' }))).toMatchObject({ statusCode: 400, param: 'statement_descriptor' });
    for (const suffix of ['A'.repeat(23), 'SHOP <B>', 'BACK\\SLASH', "IT'S", 'STAR*', 'CAFÉ', '12345']) {
      expect(await refusal(stripe.paymentIntents.create({ ...card, statement_descriptor_suffix: suffix })), suffix).toMatchObject({ statusCode: 400, param: 'statement_descriptor_suffix' });
    }
  });

  it("refuses amounts Stripe's currency rules refuse: a fraction of a króna, a three-decimal amount not ending in 0", async () => {
    const card = { payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] };
    const isk = await refusal(stripe.paymentIntents.create({ ...card, amount: 500_050, currency: 'isk' }));
    expect(isk).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', code: 'invalid_charge_amount_no_decimal_compatible', param: 'amount' });
    expect(await refusal(stripe.paymentIntents.create({ ...card, amount: 1235, currency: 'kwd' }))).toMatchObject({ statusCode: 400, param: 'amount' });
    const kwd = await stripe.paymentIntents.create({ ...card, amount: 1230, currency: 'kwd', capture_method: 'manual' });
    expect(await refusal(stripe.paymentIntents.capture(kwd.id, { amount_to_capture: 615 }))).toMatchObject({ statusCode: 400, param: 'amount_to_capture' });
    await stripe.paymentIntents.capture(kwd.id, { amount_to_capture: 1230 });
    expect(await refusal(stripe.refunds.create({ payment_intent: kwd.id, amount: 615 }))).toMatchObject({ statusCode: 400, param: 'amount' });
    expect(await stripe.refunds.create({ payment_intent: kwd.id, amount: 610 })).toMatchObject({ amount: 610, currency: 'kwd' });
    expect((await stripe.paymentIntents.create({ ...card, amount: 500_000, currency: 'isk' })).status).toBe('succeeded');
  });

  it('replays a reused Idempotency-Key with the same body and refuses it with another', async () => {
    const first = await authorize('c-2');
    const again = await authorize('c-2');
    expect(again.id).toBe(first.id);
    expect(double.requests.at(-1)).toMatchObject({ replayed: true, status: 200 });
    const error = await refusal(authorize('c-2', 2001));
    expect(error).toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError', rawType: 'idempotency_error' });
    expect(double.books.paymentIntents.get(first.id)!.amount).toBe(2000);
  });

  it('keeps a 500 for its key: the same request gets the same 500, not a new attempt', async () => {
    double.failNext({ method: 'POST', path: /^\/v1\/payment_intents$/ });
    const before = double.books.paymentIntents.size;
    expect(await refusal(authorize('c-3'))).toMatchObject({ statusCode: 500, type: 'StripeAPIError' });
    expect(await refusal(authorize('c-3'))).toMatchObject({ statusCode: 500 });
    expect(double.requests.at(-1)).toMatchObject({ replayed: true, status: 500 });
    // The key still belongs to its first body: another body under it is refused, as after a success.
    expect(await refusal(authorize('c-3', 2001))).toMatchObject({ statusCode: 400, type: 'StripeIdempotencyError' });
    expect(double.books.paymentIntents.size).toBe(before);
  });

  it('holds a request before or after carrying it out, loses an answer after, and refuses one before: for the fault matrix', async () => {
    const refunds = () => double.books.refunds.size;
    const paid = await stripe.paymentIntents.create({ amount: 3000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
    // On fetch, as the connector's SDK is (Node's own HTTP client would send a request cut before its answer again).
    const url = new URL(double.url);
    const onFetch = new Stripe('sk_test_contract', { apiVersion: API_VERSION, host: url.hostname, port: url.port, protocol: 'http', maxNetworkRetries: 0, telemetry: false, httpClient: Stripe.createFetchHttpClient() });
    const refund = (key: string) => onFetch.refunds.create({ payment_intent: paid.id, amount: 100 }, { idempotencyKey: key });
    const match = { method: 'POST', path: /^\/v1\/refunds$/ } as const;
    const start = refunds();
    // Held before: nothing done while held; released, the connection is cut and it never was.
    const before = double.holdNext(match, { acted: false });
    const cut = refund('f-1').then(() => 'answered', () => 'cut');
    await before.arrived;
    expect(refunds()).toBe(start);
    before.release();
    expect([await cut, refunds()]).toEqual(['cut', start]);
    // Held after: done at once, the answer sent only when released.
    const after = double.holdNext(match, { acted: true });
    const answered = refund('f-2');
    await after.arrived;
    expect(refunds()).toBe(start + 1);
    after.release();
    expect(await answered).toMatchObject({ object: 'refund', amount: 100 });
    // Lost: done, then the connection cut; the same key then replays what was done, no second refund.
    double.loseNext(match);
    await expect(refund('f-3')).rejects.toThrow();
    expect(refunds()).toBe(start + 2);
    expect(await refund('f-3')).toMatchObject({ object: 'refund', amount: 100 });
    expect([double.requests.at(-1)!.replayed, refunds()]).toEqual([true, start + 2]);
    // Refused before: a 400, nothing done, nothing kept for the key (the same key then goes through).
    double.refuseNext(match);
    expect(await refusal(refund('f-4'))).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError' });
    expect(refunds()).toBe(start + 2);
    expect(await refund('f-4')).toMatchObject({ object: 'refund' });
    expect([double.requests.at(-1)!.replayed, refunds()]).toEqual([false, start + 3]);
  });

  it('declines with the issuer decline code, and asks for 3-D Secure on-session but declines it off-session', async () => {
    const pay = (pm: string, extra: Partial<Stripe.PaymentIntentCreateParams> = {}) =>
      refusal(stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: pm, confirm: true, allowed_payment_method_types: ['card'], ...extra }));
    expect(await pay('pm_card_chargeDeclined')).toMatchObject({ statusCode: 402, type: 'StripeCardError', code: 'card_declined', decline_code: 'generic_decline' });
    expect(await pay('pm_card_chargeDeclinedInsufficientFunds')).toMatchObject({ code: 'card_declined', decline_code: 'insufficient_funds' });
    const fraud = await pay('pm_card_chargeDeclinedFraudulent');
    expect(fraud).toMatchObject({ code: 'card_declined', decline_code: 'fraudulent', payment_intent: { status: 'requires_payment_method' } });
    const customer = await stripe.customers.create({ email: 'a@example.com' });
    expect(await pay('pm_card_authenticationRequired', { customer: customer.id, off_session: true })).toMatchObject({ statusCode: 402, code: 'authentication_required' });

    const onSession = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: 'pm_card_threeDSecure2Required', confirm: true, allowed_payment_method_types: ['card'], return_url: 'https://shop.example/back' });
    expect(onSession).toMatchObject({ status: 'requires_action', next_action: { type: 'redirect_to_url', redirect_to_url: { return_url: 'https://shop.example/back' } } });
    double.answerChallenge(onSession.id, true);
    expect(await stripe.paymentIntents.retrieve(onSession.id)).toMatchObject({ status: 'succeeded', amount_received: 1000 });
  });

  it('captures once, part of the hold, releasing the rest, and refuses a capture above the capturable amount or a second one', async () => {
    const pi = await authorize('c-5');
    expect(pi).toMatchObject({ status: 'requires_capture', amount_capturable: 2000 });
    expect(await refusal(stripe.paymentIntents.capture(pi.id, { amount_to_capture: 2001 }))).toMatchObject({ statusCode: 400, code: 'amount_too_large', param: 'amount_to_capture' });
    const captured = await stripe.paymentIntents.capture(pi.id, { amount_to_capture: 1500, expand: ['latest_charge'] });
    expect(captured).toMatchObject({ status: 'succeeded', amount_received: 1500, amount_capturable: 0 });
    expect(captured.latest_charge).toMatchObject({ amount: 2000, amount_captured: 1500, amount_refunded: 500, captured: true });
    expect(await refusal(stripe.paymentIntents.capture(pi.id, { amount_to_capture: 500 }))).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
  });

  it('refunds up to what was captured, refuses more, and lets a pending refund fail', async () => {
    const pi = await stripe.paymentIntents.create({ amount: 3000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
    const partial = await stripe.refunds.create({ payment_intent: pi.id, amount: 1000, metadata: { reference: 'r-1' } });
    expect(partial).toMatchObject({ object: 'refund', status: 'succeeded', amount: 1000, payment_intent: pi.id, metadata: { reference: 'r-1' } });
    expect(await refusal(stripe.refunds.create({ payment_intent: pi.id, amount: 2001 }))).toMatchObject({ statusCode: 400, code: 'amount_too_large', param: 'amount' });
    double.books.refundsGoPending = true;
    const rest = await stripe.refunds.create({ payment_intent: pi.id });
    double.books.refundsGoPending = false;
    expect(rest).toMatchObject({ status: 'pending', amount: 2000 });
    expect(await refusal(stripe.refunds.create({ payment_intent: pi.id, amount: 1 }))).toMatchObject({ statusCode: 400, code: 'charge_already_refunded' });
    await double.failRefund(rest.id);
    expect(await stripe.refunds.retrieve(rest.id)).toMatchObject({ status: 'failed', failure_reason: 'expired_or_canceled_card' });
    expect(await stripe.refunds.create({ payment_intent: pi.id, amount: 2000 })).toMatchObject({ status: 'succeeded' });
  });

  it('cancels a hold, and refuses to cancel a captured payment', async () => {
    const pi = await authorize('c-7');
    expect(await stripe.paymentIntents.cancel(pi.id)).toMatchObject({ status: 'canceled', amount_capturable: 0 });
    const paid = await stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'] });
    expect(await refusal(stripe.paymentIntents.cancel(paid.id))).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' });
  });

  it('uses a PaymentMethod once without a Customer, and as often as wanted once attached to one', async () => {
    const once = double.paymentMethod('pm_card_visa');
    const pay = (pm: string, customer?: string) => stripe.paymentIntents.create({ amount: 1000, currency: 'eur', payment_method: pm, confirm: true, allowed_payment_method_types: ['card'], ...(customer ? { customer } : {}) });
    await pay(once);
    expect(await refusal(pay(once))).toMatchObject({ statusCode: 400, code: 'payment_method_unexpected_state', param: 'payment_method' });
    const customer = await stripe.customers.create({ name: 'Jenny Rosen' });
    expect(await refusal(stripe.paymentMethods.attach(once, { customer: customer.id }))).toMatchObject({ statusCode: 400, code: 'payment_method_unexpected_state' });

    const saved = double.paymentMethod('pm_card_visa');
    expect(await stripe.paymentMethods.attach(saved, { customer: customer.id })).toMatchObject({ id: saved, customer: customer.id });
    expect(await pay(saved, customer.id)).toMatchObject({ status: 'succeeded' });
    expect(await pay(saved, customer.id)).toMatchObject({ status: 'succeeded' });
  });

  it('lists charges and refunds by creation time, and finds PaymentIntents by search only after its lag', async () => {
    const since = double.books.now();
    const pi = await stripe.paymentIntents.create({ amount: 1200, currency: 'eur', payment_method: 'pm_card_visa', confirm: true, allowed_payment_method_types: ['card'], metadata: { reference: 'c-9' } });
    await stripe.refunds.create({ payment_intent: pi.id, amount: 200 });
    const charges = await stripe.charges.list({ created: { gte: since }, limit: 100 });
    expect(charges).toMatchObject({ object: 'list', url: '/v1/charges', has_more: false });
    expect(charges.data.map((c) => c.payment_intent)).toContain(pi.id);
    const refunds = await stripe.refunds.list({ created: { gte: since }, limit: 100 });
    expect(refunds.data.some((r) => r.payment_intent === pi.id)).toBe(true);
    expect(await refusal(stripe.charges.list({ created: { gte: since }, limit: 101 }))).toMatchObject({ statusCode: 400, param: 'limit' });

    const query = "metadata['reference']:'c-9'";
    expect((await stripe.paymentIntents.search({ query })).data).toEqual([]);
    double.books.advance(double.books.searchLagSeconds);
    expect((await stripe.paymentIntents.search({ query })).data.map((p) => p.id)).toEqual([pi.id]);
  });

  it('lists the account’s payouts newest first, by creation and status, a page at a time, and refuses an unknown parameter', async () => {
    const since = double.books.now();
    const older = double.payOut({ amount: 5000, currency: 'eur', created: since, status: 'paid' });
    const newer = double.payOut({ amount: 1200, currency: 'eur', created: since + 60, status: 'failed', failure_code: 'account_closed', failure_message: 'The bank account has been closed.' });
    const first = await stripe.payouts.list({ created: { gte: since }, limit: 1 });
    expect(first).toMatchObject({ object: 'list', url: '/v1/payouts', has_more: true });
    expect(first.data[0]).toMatchObject({ id: newer.id, object: 'payout', amount: 1200, status: 'failed', failure_message: 'The bank account has been closed.', arrival_date: since + 60 + 2 * 24 * 3600 });
    const rest = await stripe.payouts.list({ created: { gte: since }, limit: 1, starting_after: newer.id });
    expect(rest.data.map((p) => p.id)).toEqual([older.id]);
    expect((await stripe.payouts.list({ created: { gte: since }, status: 'paid' })).data.map((p) => p.id)).toEqual([older.id]);
    expect((await stripe.payouts.list({ arrival_date: { gt: since + 2 * 24 * 3600 } })).data.map((p) => p.id)).toEqual([newer.id]);
    expect(await stripe.payouts.retrieve(older.id)).toMatchObject({ id: older.id, status: 'paid' });
    const unknown = await refusal(stripe.payouts.list({ created: { gte: since }, colour: 'blue' } as Stripe.PayoutListParams));
    expect(unknown).toMatchObject({ statusCode: 400, type: 'StripeInvalidRequestError', code: 'parameter_unknown', param: 'colour' });
    expect(await refusal(stripe.payouts.list({ status: 'lost' as 'paid' }))).toMatchObject({ statusCode: 400, param: 'status' });
  });

  it('checks the key (a test key only), reads the balance, and records the API version', async () => {
    expect(await stripe.balance.retrieve()).toMatchObject({ object: 'balance', livemode: false });
    expect(double.requests.at(-1)).toMatchObject({ method: 'GET', path: '/v1/balance', stripeVersion: API_VERSION });
    expect(await refusal(client('sk_live_notatest').balance.retrieve())).toMatchObject({ statusCode: 401, type: 'StripeAuthenticationError' });
    expect(await refusal(client('pk_test_publishable').balance.retrieve())).toMatchObject({ statusCode: 401 });
    expect(await client('rk_test_restricted').balance.retrieve()).toMatchObject({ object: 'balance' });
    // A key rolled or revoked at Stripe is refused from then on, as an unknown one is.
    double.revokeKey('sk_test_rolled');
    expect(await refusal(client('sk_test_rolled').balance.retrieve())).toMatchObject({ statusCode: 401, type: 'StripeAuthenticationError' });
    expect(await refusal(stripe.balance.retrieve({ colour: 'blue' } as Stripe.BalanceRetrieveParams))).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'colour' });
  });

  it('signs webhook events as Stripe does, which the SDK verifies and a tampered body fails', async () => {
    const pi = await authorize('c-11');
    const signed = signedEvent({ type: 'payment_intent.amount_capturable_updated', object: double.books.paymentIntents.get(pi.id)!, secret: 'whsec_test_secret', apiVersion: API_VERSION });
    const signature = signed.headers['stripe-signature'];
    const event = stripe.webhooks.constructEvent(signed.payload, signature, 'whsec_test_secret');
    expect(event).toMatchObject({ object: 'event', type: 'payment_intent.amount_capturable_updated', api_version: API_VERSION, data: { object: { id: pi.id } } });
    expect(() => stripe.webhooks.constructEvent(signed.payload.replace('2000', '2001'), signature, 'whsec_test_secret')).toThrow(Stripe.errors.StripeSignatureVerificationError);
    // The connector reads the event's object again by id: one Stripe does not know is a 404.
    expect((await stripe.paymentIntents.retrieve(pi.id)).id).toBe(pi.id);
    expect(await refusal(stripe.paymentIntents.retrieve('pi_unknown'))).toMatchObject({ statusCode: 404, type: 'StripeInvalidRequestError', code: 'resource_missing' });
  });
});
