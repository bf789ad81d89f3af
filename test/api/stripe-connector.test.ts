import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PayInput } from '../../server/payments/gateway';
import { StripeMismatch } from '../../server/payments/stripe/answers';
import { STRIPE_API_VERSION } from '../../server/payments/stripe/client';
import { type StripeCardGateway, stripeGateways } from '../../server/payments/stripe/gateway';
import type { TestPaymentMethod } from '../stripe/books';
import { type StripeDouble, startStripeDouble } from '../stripe/server';
import { onCheckout } from './stripe-shop';

// The Stripe connector's core against the strict Stripe double over real HTTP: payments and
// their declines, 3-D Secure, captures, refunds, voids, lookups after a lost answer, and
// answers that do not match their requests. What the connector must refuse itself is
// asserted on the double's request log: the request never reached Stripe.

let double: StripeDouble;
let gateway: StripeCardGateway;
const signal = new AbortController().signal;

const reference = () => `call_${randomUUID()}`;
const sent = (method: string, path: RegExp) => double.requests.filter((r) => r.method === method && path.test(r.path));
const CAPTURES = /^\/v1\/payment_intents\/pi_\w+\/capture$/;
const REFUNDS = /^\/v1\/refunds$/;
const CREATES = /^\/v1\/payment_intents$/;
const SESSIONS = /^\/v1\/checkout\/sessions$/;

function payment(card: TestPaymentMethod | string, overrides: Partial<PayInput> = {}): PayInput {
  const pm = card.startsWith('pm_card_') ? card : double.paymentMethod(card as TestPaymentMethod);
  return { reference: reference(), signal, amount: 2500, currency: 'EUR', capture: true, fields: { payment_method: pm }, ...overrides };
}

/** A payment Stripe approved: its PaymentIntent id. */
async function approved(input: PayInput, on = gateway): Promise<string> {
  const result = await on.pay(input);
  if (result.outcome !== 'approved') throw new Error(`expected approved, got ${JSON.stringify(result)}`);
  return result.reference;
}

beforeAll(async () => {
  double = await startStripeDouble();
  gateway = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url })[0]!;
});
afterAll(() => double.close());

describe('Stripe connector: payments', () => {
  it('pays with a PaymentMethod: one PaymentIntent, our reference as its key and in its metadata, the pinned API version', async () => {
    const input = payment('pm_card_visa');
    const result = await gateway.pay(input);
    expect(result).toEqual({ outcome: 'approved', reference: expect.stringMatching(/^pi_/), card: { brand: 'visa', last4: '4242', expMonth: 12, expYear: 2034 } });
    const request = sent('POST', CREATES).at(-1)!;
    expect(request).toMatchObject({ idempotencyKey: input.reference, stripeVersion: STRIPE_API_VERSION, status: 200 });
    expect(request.params).toMatchObject({ amount: '2500', currency: 'eur', confirm: 'true', capture_method: 'automatic', metadata: { reference: input.reference } });
    // The same reference again acts once: Stripe replays its answer.
    expect(await gateway.pay(input)).toEqual(result);
    expect(double.requests.at(-1)).toMatchObject({ replayed: true });
  });

  it('maps declines: insufficient funds apart, fraud-related codes as a plain decline', async () => {
    expect(await gateway.pay(payment('pm_card_chargeDeclined'))).toMatchObject({ outcome: 'declined', card: { last4: '0002' } });
    expect(await gateway.pay(payment('pm_card_chargeDeclinedInsufficientFunds'))).toMatchObject({ outcome: 'insufficient_funds', card: { last4: '9995' } });
    expect(await gateway.pay(payment('pm_card_chargeDeclinedFraudulent'))).toMatchObject({ outcome: 'declined', card: { last4: '0019' } });
  });

  it("answers 3-D Secure as a challenge: the PaymentIntent's id, and where to send the customer", async () => {
    const [withReturn] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url, returnUrl: 'https://pay.example/return' });
    const result = await withReturn!.pay(payment('pm_card_threeDSecure2Required'));
    expect(result).toEqual({ outcome: 'challenge', challenge: expect.stringMatching(/^pi_/), redirect: { url: expect.stringContaining('/3ds/') } });
    expect(double.books.paymentIntents.get((result as { challenge: string }).challenge)).toMatchObject({ status: 'requires_action' });
    expect(await gateway.pay(payment('pm_card_authenticationRequired'))).toMatchObject({ outcome: 'challenge', redirect: null });
  });

  it('sends the processor’s statement descriptor as statement_descriptor_suffix, never statement_descriptor: a payment, the Payment Element’s, an off-session charge', async () => {
    const [described] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url, publishableKey: 'pk_test_connector', statementDescriptorSuffix: 'ORDER SHOP' });
    const suffixOf = async (result: Promise<unknown>, key: string) => {
      await result;
      const request = sent('POST', CREATES).find((r) => r.idempotencyKey === key)!;
      expect(request.status).toBe(200);
      expect(request.params).not.toHaveProperty('statement_descriptor');
      const pi = [...double.books.paymentIntents.values()].find((p) => p.metadata.reference === key)!;
      return [request.params.statement_descriptor_suffix, pi.statement_descriptor_suffix];
    };
    const paid = payment('pm_card_visa');
    expect(await suffixOf(described!.pay(paid), paid.reference)).toEqual(['ORDER SHOP', 'ORDER SHOP']);
    const element = payment('pm_card_visa', { fields: { hosted_fields: '1' } });
    expect(await suffixOf(described!.pay(element), element.reference)).toEqual(['ORDER SHOP', 'ORDER SHOP']);
    const saved = double.paymentMethod('pm_card_visa');
    // A saved card: attached to a Customer, as a setup session leaves it (stripe-saved-cards.test.ts saves one the whole way).
    const made = (await described!.customer!({ reference: reference(), signal, client: 'cli_described' })) as { customer: string };
    double.books.paymentMethods.get(saved)!.customer = made.customer;
    const charge = { reference: reference(), signal, method: saved, amount: 1250, currency: 'EUR', initiator: 'merchant' as const };
    expect(await suffixOf(described!.charge(charge), charge.reference)).toEqual(['ORDER SHOP', 'ORDER SHOP']);
    // Without one, the account's own descriptor: no parameter at all (Stripe's PaymentIntent says null).
    const plain = payment('pm_card_visa');
    expect(await suffixOf(gateway.pay(plain), plain.reference)).toEqual([undefined, null]);
  });

  it('refuses card numbers and a missing PaymentMethod before sending anything', async () => {
    const before = double.requests.length;
    const card = await gateway.pay({ ...payment('pm_card_visa'), fields: { card_number: '4242424242424242', payment_method: 'pm_card_visa' } });
    expect(card).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('card numbers') });
    expect(await gateway.pay({ ...payment('pm_card_visa'), fields: {} })).toMatchObject({ outcome: 'not_acted' });
    expect(double.requests.length).toBe(before);
  });

  it("says not_acted when Stripe refuses the request (a key that is not a test key), and throws when nobody knows", async () => {
    const [live] = stripeGateways({ secretKey: 'sk_live_notreally', apiUrl: double.url });
    expect(await live!.pay(payment('pm_card_visa'))).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('401') });
    double.failNext({ method: 'POST', path: CREATES });
    await expect(gateway.pay(payment('pm_card_visa'))).rejects.toThrow();
    const aborted = AbortSignal.abort();
    await expect(gateway.pay({ ...payment('pm_card_visa'), signal: aborted })).rejects.toThrow();
  });

  it('throws StripeMismatch when an answer does not match its request', async () => {
    double.rewriteNext({ method: 'POST', path: CREATES }, (pi) => ({ ...pi, amount: 2600 }));
    await expect(gateway.pay(payment('pm_card_visa'))).rejects.toThrow(StripeMismatch);
    double.rewriteNext({ method: 'POST', path: CREATES }, (pi) => ({ ...pi, metadata: { reference: 'someone-else' } }));
    await expect(gateway.pay(payment('pm_card_visa'))).rejects.toThrow(/metadata.reference/);
  });
});

describe('Stripe connector: capture, refund, void', () => {
  it('captures once: part of the hold, the rest released; a second capture is refused here, never sent', async () => {
    const pi = await approved(payment('pm_card_visa', { capture: false }));
    expect(await gateway.holdExpiry({ reference: reference(), signal, payment: pi })).toEqual(expect.any(Date));
    const held = (await gateway.holdExpiry({ reference: reference(), signal, payment: pi }))!.getTime() - Date.now();
    expect(held).toBeGreaterThan(6.9 * 86_400_000);

    const over = await gateway.capture({ reference: reference(), signal, payment: pi, amount: 2501 });
    expect(over).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('2500 held') });
    const first = { reference: reference(), signal, payment: pi, amount: 1500 };
    expect(await gateway.capture(first)).toEqual({ ok: true, reference: pi });
    expect(double.books.paymentIntents.get(pi)).toMatchObject({ status: 'succeeded', amount_received: 1500, amount_capturable: 0 });
    // The same capture again answers the same, from Stripe's record of it.
    expect(await gateway.capture(first)).toEqual({ ok: true, reference: pi });

    const second = await gateway.capture({ reference: reference(), signal, payment: pi, amount: 500 });
    expect(second).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('captures a PaymentIntent once') });
    expect(sent('POST', CAPTURES).filter((r) => r.path.includes(pi))).toHaveLength(1);
    expect(await gateway.holdExpiry({ reference: reference(), signal, payment: pi })).toBeNull();
  });

  it('refunds in parts and in full; an over-refund is refused here, never sent', async () => {
    const pi = await approved(payment('pm_card_visa'));
    const part = { reference: reference(), signal, payment: pi, amount: 1000 };
    const first = await gateway.refund(part);
    expect(first).toEqual({ ok: true, reference: expect.stringMatching(/^re_/) });
    expect(await gateway.refund(part)).toEqual(first);
    expect(sent('POST', REFUNDS).filter((r) => r.params.payment_intent === pi)).toHaveLength(1);

    const over = await gateway.refund({ reference: reference(), signal, payment: pi, amount: 1501 });
    expect(over).toMatchObject({ outcome: 'not_acted', reason: expect.stringContaining('1500 left') });
    expect(await gateway.refund({ reference: reference(), signal, payment: pi, amount: 1500 })).toMatchObject({ ok: true });
    expect(await gateway.refund({ reference: reference(), signal, payment: pi, amount: 1 })).toMatchObject({ outcome: 'not_acted' });
    expect(sent('POST', REFUNDS).filter((r) => r.params.payment_intent === pi)).toHaveLength(2);

    double.rewriteNext({ method: 'POST', path: REFUNDS }, (re) => ({ ...re, amount: 999 }));
    const other = await approved(payment('pm_card_visa'));
    await expect(gateway.refund({ reference: reference(), signal, payment: other, amount: 1000 })).rejects.toThrow(StripeMismatch);
  });

  it("sends amounts in Stripe's units where they are not ISO 4217's (MGA, ISK) and reads them back in ours; refuses what Stripe cannot take before sending", async () => {
    // 5,000.00 MGA (ISO: two decimals) is 5000 ariary at Stripe, a zero-decimal currency there.
    const ariary = payment('pm_card_visa', { amount: 500_000, currency: 'MGA', capture: false });
    const mga = await approved(ariary);
    expect(sent('POST', CREATES).at(-1)!.params).toMatchObject({ amount: '5000', currency: 'mga' });
    expect(await gateway.capture({ reference: reference(), signal, payment: mga, amount: 300_000 })).toEqual({ ok: true, reference: mga });
    expect(sent('POST', CAPTURES).at(-1)!.params).toMatchObject({ amount_to_capture: '3000' });
    expect(await gateway.refund({ reference: reference(), signal, payment: mga, amount: 100_000 })).toMatchObject({ ok: true });
    expect(sent('POST', REFUNDS).at(-1)!.params).toMatchObject({ amount: '1000' });
    // What a lookup reads back is in our units again.
    expect(await gateway.lookup!({ reference: ariary.reference, signal })).toMatchObject({ status: 'succeeded' });
    // A fraction of an ariary cannot be sent: refused here.
    const creates = sent('POST', CREATES).length;
    expect(await gateway.pay(payment('pm_card_visa', { amount: 500_050, currency: 'MGA' }))).toEqual({ outcome: 'not_acted', reason: expect.stringContaining('steps of 1.00 MGA') });
    expect(await gateway.refund({ reference: reference(), signal, payment: mga, amount: 50 })).toMatchObject({ outcome: 'not_acted' });

    // 5000 ISK (ISO: no decimals) is 500000 at Stripe, which counts krónur in hundredths.
    const isk = await approved(payment('pm_card_visa', { amount: 5000, currency: 'ISK' }));
    expect(sent('POST', CREATES).at(-1)!.params).toMatchObject({ amount: '500000', currency: 'isk' });
    expect(await gateway.refund({ reference: reference(), signal, payment: isk, amount: 5000 })).toMatchObject({ ok: true });
    expect(sent('POST', REFUNDS).at(-1)!.params).toMatchObject({ amount: '500000' });

    // Three-decimal currencies: Stripe takes amounts ending in 0 only.
    expect(await gateway.pay(payment('pm_card_visa', { amount: 1235, currency: 'KWD' }))).toEqual({ outcome: 'not_acted', reason: expect.stringContaining('steps of 0.010 KWD: 1.235 KWD') });
    expect(sent('POST', CREATES)).toHaveLength(creates + 1);
    const kwd = await approved(payment('pm_card_visa', { amount: 1230, currency: 'KWD' }));
    expect(sent('POST', CREATES).at(-1)!.params).toMatchObject({ amount: '1230' });
    expect(await gateway.refund({ reference: reference(), signal, payment: kwd, amount: 615 })).toMatchObject({ outcome: 'not_acted' });
    expect(await gateway.refund({ reference: reference(), signal, payment: kwd, amount: 610 })).toMatchObject({ ok: true });
  });

  it('voids a hold, and refuses to void a captured payment', async () => {
    const pi = await approved(payment('pm_card_visa', { capture: false }));
    const input = { reference: reference(), signal, payment: pi, amount: 2500 };
    expect(await gateway.void(input)).toEqual({ ok: true, reference: pi });
    expect(double.books.paymentIntents.get(pi)).toMatchObject({ status: 'canceled' });
    expect(await gateway.void(input)).toEqual({ ok: true, reference: pi });
    const paid = await approved(payment('pm_card_visa'));
    expect(await gateway.void({ reference: reference(), signal, payment: paid, amount: 2500 })).toMatchObject({ outcome: 'not_acted' });
  });
});

describe('Stripe connector: lookup by our reference', () => {
  it('after a lost answer: replays the key, meets the kept 500, lists by creation time and finds nothing', async () => {
    const input = payment('pm_card_visa');
    double.failNext({ method: 'POST', path: CREATES });
    await expect(gateway.pay(input)).rejects.toThrow();
    const from = double.requests.length;
    expect(await gateway.lookup!({ reference: input.reference, signal })).toEqual({ status: 'not_found' });
    const asked = double.requests.slice(from);
    expect(asked.map((r) => `${r.method} ${r.path} ${r.status}${r.replayed ? ' replayed' : ''}`)).toEqual(['POST /v1/payment_intents 500 replayed', 'GET /v1/payment_intents 200']);
  });

  it('after a lost answer of a payment Stripe made: finds it in the list', async () => {
    const input = payment('pm_card_visa');
    double.failNext({ method: 'POST', path: CREATES }, { acted: true });
    await expect(gateway.pay(input)).rejects.toThrow();
    const found = await gateway.lookup!({ reference: input.reference, signal });
    const made = [...double.books.paymentIntents.values()].find((pi) => pi.metadata.reference === input.reference)!;
    expect(found).toEqual({ status: 'succeeded', reference: made.id, card: expect.objectContaining({ last4: '4242' }) });
  });

  it('answers a decided payment from its key, and each action from its PaymentIntent', async () => {
    const declined = payment('pm_card_chargeDeclinedInsufficientFunds');
    await gateway.pay(declined);
    expect(await gateway.lookup!({ reference: declined.reference, signal })).toMatchObject({ status: 'failed', reason: 'insufficient_funds' });

    const pi = await approved(payment('pm_card_visa', { capture: false }));
    const capture = { reference: reference(), signal, payment: pi, amount: 2000 };
    await gateway.capture(capture);
    expect(await gateway.lookup!({ reference: capture.reference, signal })).toEqual({ status: 'succeeded', reference: pi, card: null });
    const refund = { reference: reference(), signal, payment: pi, amount: 700 };
    const made = await gateway.refund(refund);
    expect(await gateway.lookup!({ reference: refund.reference, signal })).toEqual({ status: 'succeeded', reference: (made as { reference: string }).reference, card: null });
  });

  it('after a restart (nothing remembered): lists payments and refunds, finds what was made, and not_found for the rest', async () => {
    const input = payment('pm_card_visa');
    const pi = await approved(input);
    const [restarted] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url });
    expect(await restarted!.lookup!({ reference: input.reference, signal })).toMatchObject({ status: 'succeeded', reference: pi });
    const refund = { reference: reference(), signal, payment: pi, amount: 500 };
    await gateway.refund(refund);
    expect(await restarted!.lookup!({ reference: refund.reference, signal })).toMatchObject({ status: 'succeeded', reference: expect.stringMatching(/^re_/) });
    expect(await restarted!.lookup!({ reference: reference(), signal })).toEqual({ status: 'not_found' });
  });

  it('believes a search that finds nothing only an hour after the call, when more payments than a lookup lists came since', async () => {
    let now = Date.now();
    const [clocked] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url }, { now: () => new Date(now) });
    const input = payment('pm_card_visa');
    double.failNext({ method: 'POST', path: CREATES });
    await expect(clocked!.pay(input)).rejects.toThrow();
    // 2,000 payments of others since the call, newer than it: the list ends before it could reach ours.
    const template = [...double.books.paymentIntents.values()].at(-1)!;
    const later = Array.from({ length: 2000 }, (_, i) => `pi_later${i}${randomUUID().slice(0, 8)}`);
    for (const [i, id] of later.entries()) double.books.paymentIntents.set(id, { ...template, id, created: double.books.now() + 60, metadata: { reference: `other_${i}` } });
    const from = double.requests.length;
    await expect(clocked!.lookup!({ reference: input.reference, signal })).rejects.toThrow(/search cannot be believed yet/);
    const asked = double.requests.slice(from).map((r) => `${r.method} ${r.path}`);
    expect(asked.filter((r) => r === 'GET /v1/payment_intents')).toHaveLength(20);
    expect(asked.at(-1)).toBe('GET /v1/payment_intents/search');
    now += 61 * 60_000;
    expect(await clocked!.lookup!({ reference: input.reference, signal })).toEqual({ status: 'not_found' });
    for (const id of later) double.books.paymentIntents.delete(id);
  });

  it('after a restart, reads a void back from the PaymentIntent the reconciliation names (a void leaves no reference of ours at Stripe)', async () => {
    const pi = await approved(payment('pm_card_visa', { capture: false }));
    const voided = { reference: reference(), signal, payment: pi, amount: 2500 };
    await gateway.void(voided);
    const [restarted] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url });
    expect(await restarted!.lookup!({ reference: voided.reference, signal, kind: 'void', payment: pi })).toEqual({ status: 'succeeded', reference: pi, card: null });
    // Without the payment named, nothing at Stripe says this void was made.
    expect(await restarted!.lookup!({ reference: voided.reference, signal, kind: 'void' })).toEqual({ status: 'not_found' });
    const held = await approved(payment('pm_card_visa', { capture: false }));
    expect(await restarted!.lookup!({ reference: reference(), signal, kind: 'void', payment: held })).toEqual({ status: 'not_found' });
  });

  it('after a restart, ends what a start whose answer was lost made: the Payment Element’s PaymentIntent cancelled, the Checkout Session expired', async () => {
    const [started] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url, publishableKey: 'pk_test_connector' });
    const element = payment('pm_card_visa', { fields: { hosted_fields: '1' } });
    double.loseNext({ method: 'POST', path: CREATES });
    await expect(started!.pay(element)).rejects.toThrow();
    const checkout = payment('pm_card_visa', { fields: {}, returnUrl: 'https://pay.example/return' });
    double.loseNext({ method: 'POST', path: SESSIONS });
    await expect(started!.pay(checkout)).rejects.toThrow();
    const [restarted] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url });
    expect(await restarted!.lookup!({ reference: element.reference, signal })).toMatchObject({ status: 'failed', reason: 'declined' });
    expect([...double.books.paymentIntents.values()].find((pi) => pi.metadata.reference === element.reference)).toMatchObject({ status: 'canceled' });
    expect(await restarted!.lookup!({ reference: checkout.reference, signal })).toMatchObject({ status: 'failed', reason: 'declined' });
    expect([...double.books.checkoutSessions.values()].find((cs) => cs.client_reference_id === checkout.reference)).toMatchObject({ status: 'expired' });
  });

  it('finds a Checkout Session answered by a 500 kept for its key by listing, and expires it', async () => {
    const [started] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url });
    const checkout = payment('pm_card_visa', { fields: {}, returnUrl: 'https://pay.example/return' });
    double.failNext({ method: 'POST', path: SESSIONS }, { acted: true });
    await expect(started!.pay(checkout)).rejects.toThrow();
    expect(await started!.lookup!({ reference: checkout.reference, signal })).toMatchObject({ status: 'failed', reason: 'declined' });
    expect([...double.books.checkoutSessions.values()].find((cs) => cs.client_reference_id === checkout.reference)).toMatchObject({ status: 'expired' });
  });

  it('ends a card’s setup session whose start was lost (a cut, a kept 500, a restart), and answers the card saved on one the customer completed', async () => {
    const [started] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url });
    const store = () => ({ reference: reference(), signal, fields: {}, authenticate: true, returnUrl: 'https://pay.example/saved' });
    const sessionOf = (ref: string) => [...double.books.checkoutSessions.values()].find((cs) => cs.client_reference_id === ref)!;
    const cut = store();
    double.loseNext({ method: 'POST', path: SESSIONS });
    await expect(started!.store!(cut)).rejects.toThrow();
    const kept = store();
    double.failNext({ method: 'POST', path: SESSIONS }, { acted: true });
    await expect(started!.store!(kept)).rejects.toThrow();
    const saved = store();
    double.loseNext({ method: 'POST', path: SESSIONS });
    await expect(started!.store!(saved)).rejects.toThrow();
    expect([sessionOf(cut.reference), sessionOf(kept.reference), sessionOf(saved.reference)].map((cs) => [cs.mode, cs.status])).toEqual([
      ['setup', 'open'],
      ['setup', 'open'],
      ['setup', 'open'],
    ]);
    // The customer never had its page; were it completed all the same, the card saved there is the call's, not expired away.
    expect((await onCheckout(sessionOf(saved.reference).url as string, 'pay')).status).toBe(303);
    expect(await started!.lookup!({ reference: cut.reference, signal, kind: 'store' })).toEqual({ status: 'failed', reason: 'declined', card: null });
    const [restarted] = stripeGateways({ secretKey: 'sk_test_connector', apiUrl: double.url });
    expect(await restarted!.lookup!({ reference: kept.reference, signal, kind: 'store' })).toEqual({ status: 'failed', reason: 'declined', card: null });
    const found = await restarted!.lookup!({ reference: saved.reference, signal, kind: 'store' });
    expect(found).toMatchObject({ status: 'succeeded', reference: expect.stringMatching(/^pm_/) });
    expect(double.books.paymentMethods.get((found as { reference: string }).reference)).toMatchObject({ customer: sessionOf(saved.reference).customer });
    expect([sessionOf(cut.reference), sessionOf(kept.reference), sessionOf(saved.reference)].map((cs) => cs.status)).toEqual(['expired', 'expired', 'complete']);
  });
});
