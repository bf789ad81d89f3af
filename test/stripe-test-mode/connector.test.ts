import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PayInput } from '../../server/payments/gateway';
import { stripeClient } from '../../server/payments/stripe/client';
import { type StripeCardGateway, stripeGateways } from '../../server/payments/stripe/gateway';
import { stripeTestKey } from './key';

// The Stripe connector's flows against Stripe's own test mode (api.stripe.com), not the
// double: `npm run test:stripe-test-mode` with STRIPE_TEST_SECRET_KEY (a test-mode key; the
// global setup refuses to start without one). The same flows as test/api/stripe-connector.test.ts
// and stripe-saved-cards.test.ts, with Stripe's published test PaymentMethods: payments
// approved, declined and asking for 3-D Secure; Checkout's redirect; a hold captured in part
// and another voided; refunds in parts; lookups; a saved card charged off-session, and one
// that needs its cardholder. Nothing here reads the double. Never run from the machines that
// built this (no network there): docs/processors.md says so.

const signal = new AbortController().signal;
const reference = () => `call_${randomUUID()}`;
const RETURN = 'https://pay.example/return';
let gateway: StripeCardGateway;
let withReturn: StripeCardGateway;
let key = '';

const payment = (pm: string, over: Partial<PayInput> = {}): PayInput => ({ reference: reference(), signal, amount: 2500, currency: 'EUR', capture: true, fields: { payment_method: pm }, ...over });

async function approved(input: PayInput): Promise<string> {
  const result = await gateway.pay(input);
  if (result.outcome !== 'approved') throw new Error(`expected approved, got ${JSON.stringify(result)}`);
  return result.reference;
}

/** What the customer's side does when a card is saved (Stripe's page in setup mode): a Customer with the test PaymentMethod attached. */
async function savedCard(testMethod: string): Promise<string> {
  const stripe = stripeClient({ secretKey: key, apiUrl: 'https://api.stripe.com', filesUrl: 'https://files.stripe.com', timeoutMs: 30_000 });
  const customer = await stripe.customers.create({ description: 'test:stripe-test-mode' });
  const pm = await stripe.paymentMethods.attach(testMethod, { customer: customer.id });
  return pm.id;
}

beforeAll(() => {
  const found = stripeTestKey();
  if ('problem' in found) throw new Error(found.problem);
  key = found.key;
  [gateway] = stripeGateways({ secretKey: key }) as [StripeCardGateway];
  [withReturn] = stripeGateways({ secretKey: key, returnUrl: RETURN }) as [StripeCardGateway];
});

describe('Stripe test mode: payments', () => {
  it('pays with a PaymentMethod; the same reference again acts once', async () => {
    const input = payment('pm_card_visa');
    const result = await gateway.pay(input);
    expect(result).toMatchObject({ outcome: 'approved', reference: expect.stringMatching(/^pi_/), card: { brand: 'visa', last4: '4242' } });
    expect(await gateway.pay(input)).toEqual(result);
  });

  it('maps declines: insufficient funds apart, fraud-related codes as a plain decline', async () => {
    expect(await gateway.pay(payment('pm_card_chargeDeclined'))).toMatchObject({ outcome: 'declined' });
    expect(await gateway.pay(payment('pm_card_chargeDeclinedInsufficientFunds'))).toMatchObject({ outcome: 'insufficient_funds' });
    expect(await gateway.pay(payment('pm_card_chargeDeclinedFraudulent'))).toMatchObject({ outcome: 'declined' });
  });

  it('answers 3-D Secure as a challenge sent to Stripe’s authentication host', async () => {
    const result = await withReturn.pay(payment('pm_card_threeDSecure2Required'));
    expect(result).toMatchObject({ outcome: 'challenge', challenge: expect.stringMatching(/^pi_/), redirect: { url: expect.stringMatching(/^https:\/\/hooks\.stripe\.com\//) } });
  });

  it('starts Stripe Checkout by redirect for a payment without a PaymentMethod', async () => {
    const result = await withReturn.pay({ ...payment('pm_card_visa'), fields: {}, returnUrl: RETURN });
    expect(result).toMatchObject({ outcome: 'redirect', redirect: { url: expect.stringMatching(/^https:\/\/checkout\.stripe\.com\//) }, processorId: expect.stringMatching(/^cs_test_/) });
  });
});

describe('Stripe test mode: capture, refund, void, lookup', () => {
  it('captures part of a hold once, the rest released; a second capture is refused before it is sent', async () => {
    const pi = await approved(payment('pm_card_visa', { capture: false }));
    expect(await gateway.capture({ reference: reference(), signal, payment: pi, amount: 1500 })).toEqual({ ok: true, reference: pi });
    expect(await gateway.capture({ reference: reference(), signal, payment: pi, amount: 500 })).toMatchObject({ outcome: 'not_acted' });
  });

  it('refunds in parts and in full; an over-refund is refused', async () => {
    const pi = await approved(payment('pm_card_visa'));
    expect(await gateway.refund({ reference: reference(), signal, payment: pi, amount: 1000 })).toEqual({ ok: true, reference: expect.stringMatching(/^re_/) });
    expect(await gateway.refund({ reference: reference(), signal, payment: pi, amount: 1501 })).toMatchObject({ outcome: 'not_acted' });
    expect(await gateway.refund({ reference: reference(), signal, payment: pi, amount: 1500 })).toMatchObject({ ok: true });
  });

  it('voids a hold, and refuses to void a captured payment', async () => {
    const pi = await approved(payment('pm_card_visa', { capture: false }));
    expect(await gateway.void({ reference: reference(), signal, payment: pi, amount: 2500 })).toEqual({ ok: true, reference: pi });
    const paid = await approved(payment('pm_card_visa'));
    expect(await gateway.void({ reference: reference(), signal, payment: paid, amount: 2500 })).toMatchObject({ outcome: 'not_acted' });
  });

  it('looks a payment up by our reference, and finds none for a reference never sent', async () => {
    const input = payment('pm_card_visa');
    const pi = await approved(input);
    expect(await gateway.lookup!({ reference: input.reference, signal })).toMatchObject({ status: 'succeeded', reference: pi });
    // A process that did not send it (after a restart): found by listing, not by search.
    const [restarted] = stripeGateways({ secretKey: key }) as [StripeCardGateway];
    expect(await restarted.lookup!({ reference: input.reference, signal })).toMatchObject({ status: 'succeeded', reference: pi });
    expect(await restarted.lookup!({ reference: reference(), signal })).toEqual({ status: 'not_found' });
  });
});

describe('Stripe test mode: saved cards', () => {
  it('charges a saved card off-session, as the merchant', async () => {
    const pm = await savedCard('pm_card_visa');
    const result = await gateway.charge({ reference: reference(), signal, method: pm, amount: 1250, currency: 'EUR', initiator: 'merchant' });
    expect(result).toMatchObject({ outcome: 'approved', reference: expect.stringMatching(/^pi_/), card: { last4: '4242' } });
  });

  it('answers authentication_required when the issuer wants the cardholder, keeping the PaymentIntent for the confirm page', async () => {
    const pm = await savedCard('pm_card_authenticationRequired');
    const result = await gateway.charge({ reference: reference(), signal, method: pm, amount: 1250, currency: 'EUR', initiator: 'merchant' });
    expect(result).toMatchObject({ outcome: 'authentication_required', processorId: expect.stringMatching(/^pi_/) });
  });

  it('says not_acted for a PaymentMethod attached to no Customer, before Stripe is asked to charge it', async () => {
    expect(await gateway.charge({ reference: reference(), signal, method: 'pm_card_visa', amount: 1250, currency: 'EUR', initiator: 'merchant' })).toMatchObject({ outcome: 'not_acted' });
  });
});
