import { randomBytes } from 'node:crypto';
import fixtures from './fixtures.json' with { type: 'json' };

// Stripe objects as Stripe returns them. `fixtures.json` holds Stripe's published example
// objects (`openapi/fixtures3.json` of the public stripe/openapi repository, MIT licence;
// copied unchanged from ../shared/vendor/stripe-fixtures3.json, only the resources the
// double answers): every object the double returns starts as a deep copy of its example,
// so it has every field Stripe's has, and the double then sets the fields that carry state.
// The examples fill some fields with placeholders (a `last_payment_error` of type
// `idempotency_error`, a `next_action` of type `type`, a `transfer_data` to `obj_123`):
// those are reset to what a fresh object of that kind holds.

export type StripeObject = Record<string, any>;

type Resource = keyof typeof fixtures;

const example = (resource: Resource): StripeObject => structuredClone(fixtures[resource]) as StripeObject;

/** Ids as Stripe makes them: a prefix and 24 random characters. */
const newId = (prefix: string) => `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').slice(0, 24)}`;

export interface CardDetails {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  funding: string;
  country: string;
}

export function paymentMethod(card: CardDetails, created: number): StripeObject {
  const pm = example('payment_method');
  const id = newId('pm');
  Object.assign(pm, { id, created, customer: null, metadata: {}, allow_redisplay: 'unspecified' });
  pm.billing_details = { ...pm.billing_details, email: null, phone: null, address: Object.fromEntries(Object.keys(pm.billing_details.address).map((k) => [k, null])) };
  Object.assign(pm.card, card, { display_brand: card.brand, wallet: null, fingerprint: `fp${card.last4}${card.brand}`.slice(0, 16) });
  pm.card.networks = { available: [card.brand], preferred: null };
  return pm;
}

export function paymentIntent(fields: { amount: number; currency: string; created: number } & StripeObject): StripeObject {
  const pi = example('payment_intent');
  const id = newId('pi');
  Object.assign(pi, {
    id,
    client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
    amount_capturable: 0,
    amount_received: 0,
    automatic_payment_methods: null,
    canceled_at: null,
    last_payment_error: null,
    latest_charge: null,
    next_action: null,
    payment_method_configuration_details: null,
    processing: null,
    transfer_data: null,
    shipping: null,
    managed_payments: null,
    metadata: {},
    ...fields,
  });
  return pi;
}

/** The charge of one confirmation attempt: `succeeded` (captured or only authorized) or `failed`. */
export function charge(fields: {
  pi: StripeObject;
  pm: StripeObject;
  created: number;
  status: 'succeeded' | 'failed';
  captured: boolean;
  failure?: { code: string; message: string; decline_code: string };
  /** Seconds an authorization holds (books.holdSeconds). */
  holdSeconds?: number;
}): StripeObject {
  const { pi, pm, created, status, captured, failure, holdSeconds = 7 * 24 * 3600 } = fields;
  const ch = example('charge');
  const id = newId('ch');
  const card = ch.payment_method_details.card;
  Object.assign(card, {
    brand: pm.card.brand,
    last4: pm.card.last4,
    exp_month: pm.card.exp_month,
    exp_year: pm.card.exp_year,
    country: pm.card.country,
    funding: pm.card.funding,
    network: pm.card.brand,
    fingerprint: pm.card.fingerprint,
    amount_authorized: status === 'succeeded' ? pi.amount : null,
    wallet: null,
    // An authorization expires; Stripe says when on the charge (7 days for online card payments).
    capture_before: status === 'succeeded' && !captured ? created + holdSeconds : undefined,
  });
  if (card.capture_before === undefined) delete card.capture_before;
  Object.assign(ch, {
    id,
    amount: pi.amount,
    amount_captured: captured ? pi.amount : 0,
    amount_refunded: 0,
    // Set when the money is captured (settle below), with the balance transaction it makes.
    balance_transaction: null,
    calculated_statement_descriptor: 'CHECKOUT',
    captured,
    created,
    currency: pi.currency,
    customer: pi.customer,
    description: pi.description,
    failure_code: failure?.code ?? null,
    failure_message: failure?.message ?? null,
    metadata: { ...pi.metadata },
    outcome: outcomeOf(status, failure),
    paid: status === 'succeeded',
    payment_intent: pi.id,
    payment_method: pm.id,
    receipt_url: null,
    refunded: false,
    refunds: { object: 'list', data: [], has_more: false, url: `/v1/charges/${id}/refunds` },
    source: null,
    status,
    transfer_data: null,
    shipping: null,
  });
  return ch;
}

/** What Stripe charges the double's account per card payment: its standard EEA card price, 1.5 % + 25 minor units. */
export const stripeFee = (amount: number) => Math.round(amount * 0.015) + 25;

/** How long after a payment the double's account has its net available (the account's payout delay). */
export const AVAILABLE_AFTER_SECONDS = 2 * 24 * 3600;

/**
 * The balance transaction a captured charge makes in the account (`amount` captured, in the
 * charge's currency: the double's account settles in every currency it is paid in), linked
 * from the charge's `balance_transaction`.
 */
export function settle(ch: StripeObject, amount: number, created: number): StripeObject {
  const bt = example('balance_transaction');
  const fee = stripeFee(amount);
  Object.assign(bt, {
    id: newId('txn'),
    amount,
    fee,
    net: amount - fee,
    fee_details: [{ amount: fee, application: null, currency: ch.currency, description: 'Stripe processing fees', type: 'stripe_fee' }],
    currency: ch.currency,
    created,
    available_on: created + AVAILABLE_AFTER_SECONDS,
    description: ch.description,
    source: ch.id,
    status: 'pending',
    type: 'charge',
    reporting_category: 'charge',
  });
  ch.balance_transaction = bt.id;
  return bt;
}

function outcomeOf(status: 'succeeded' | 'failed', failure?: { decline_code: string }): StripeObject {
  if (status === 'succeeded') {
    return { advice_code: null, network_advice_code: null, network_decline_code: null, network_status: 'approved_by_network', reason: null, risk_level: 'normal', seller_message: 'Payment complete.', type: 'authorized' };
  }
  const blocked = failure?.decline_code === 'fraudulent';
  return {
    advice_code: blocked ? 'do_not_try_again' : 'try_again_later',
    network_advice_code: null,
    network_decline_code: null,
    network_status: 'declined_by_network',
    reason: failure?.decline_code ?? null,
    risk_level: 'normal',
    seller_message: 'The bank did not return any further details with this decline.',
    type: 'issuer_declined',
  };
}

export function refund(fields: { amount: number; charge: StripeObject; created: number; status: string } & StripeObject): StripeObject {
  const re = example('refund');
  const { charge: ch, ...rest } = fields;
  Object.assign(re, {
    id: newId('re'),
    balance_transaction: newId('txn'),
    charge: ch.id,
    currency: ch.currency,
    payment_intent: ch.payment_intent,
    payment_method: ch.payment_method,
    customer: ch.customer,
    metadata: {},
    reason: null,
    ...rest,
  });
  return re;
}

/**
 * An automatic payout of the account's balance to its bank account (Stripe's own schedule, not
 * ours): `in_transit` with an arrival two days after it is made unless `fields` say otherwise.
 */
export function payout(fields: { amount: number; currency: string; created: number } & StripeObject): StripeObject {
  const po = example('payout');
  Object.assign(po, {
    id: newId('po'),
    arrival_date: fields.created + 2 * 24 * 3600,
    balance_transaction: newId('txn'),
    destination: newId('ba'),
    status: 'in_transit',
    failure_code: null,
    failure_message: null,
    metadata: {},
    ...fields,
  });
  return po;
}

export function customer(fields: { created: number } & StripeObject): StripeObject {
  const cus = example('customer');
  Object.assign(cus, { id: newId('cus'), currency: null, discount: null, invoice_prefix: randomBytes(4).toString('hex').toUpperCase(), metadata: {}, shipping: null, ...fields });
  return cus;
}

export const balance = (): StripeObject => example('balance');

/** A dispute of a charge, opened by the cardholder's bank: no evidence yet, due in 7 days (Stripe's `evidence_details.due_by`). */
export function dispute(fields: { charge: StripeObject; amount: number; reason: string; status: string; created: number }): StripeObject {
  const dp = example('dispute');
  const { charge: ch, ...rest } = fields;
  Object.assign(dp, {
    id: newId('dp'),
    charge: ch.id,
    payment_intent: ch.payment_intent,
    currency: ch.currency,
    evidence: Object.fromEntries(Object.keys(dp.evidence).map((k) => [k, k === 'enhanced_evidence' ? {} : null])),
    evidence_details: { due_by: fields.created + 7 * 24 * 3600, enhanced_eligibility: {}, has_evidence: false, past_due: false, submission_count: 0 },
    is_charge_refundable: false,
    metadata: {},
    ...rest,
  });
  dp.payment_method_details.card.case_type = fields.status.startsWith('warning_') ? 'inquiry' : 'chargeback';
  return dp;
}

/** A file uploaded to Stripe's files host. */
export function file(fields: { purpose: string; size: number; type: string; filename: string; created: number }): StripeObject {
  const f = example('file');
  const id = newId('file');
  Object.assign(f, { id, expires_at: null, links: { object: 'list', data: [], has_more: false, url: `/v1/file_links?file=${id}` }, title: null, url: `https://files.stripe.com/v1/files/${id}/contents`, ...fields });
  return f;
}

export const list = (data: StripeObject[], url: string, hasMore: boolean) => ({ object: 'list', data, has_more: hasMore, url });

export function event(fields: { type: string; object: StripeObject; created: number; apiVersion: string; previous?: StripeObject }): StripeObject {
  const evt = example('event');
  Object.assign(evt, {
    id: newId('evt'),
    api_version: fields.apiVersion,
    created: fields.created,
    data: { object: fields.object, ...(fields.previous ? { previous_attributes: fields.previous } : {}) },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: fields.type,
  });
  return evt;
}


/** A new open Checkout Session (`mode=payment`): the example's placeholders reset to what a fresh one holds. */
export function checkoutSession(fields: { created: number } & StripeObject): StripeObject {
  const cs = example('checkout.session');
  Object.assign(cs, {
    id: newId('cs_test').replace('cs_test_', 'cs_test_a1'),
    object: 'checkout.session',
    mode: 'payment',
    status: 'open',
    payment_status: 'unpaid',
    payment_intent: null,
    customer: null,
    customer_details: null,
    collected_information: null,
    currency_conversion: null,
    shipping_cost: null,
    shipping_details: null,
    shipping_address_collection: null,
    after_expiration: null,
    payment_method_configuration_details: null,
    invoice_creation: { enabled: false, invoice_data: cs.invoice_creation.invoice_data },
    adaptive_pricing: { enabled: false },
    managed_payments: { enabled: false },
    custom_text: { after_submit: null, shipping_address: null, submit: null, terms_of_service_acceptance: null },
    livemode: false,
    ...fields,
  });
  return cs;
}

/** A SetupIntent confirmed on a setup session's page: the example's placeholders reset to what a fresh one holds. */
export function setupIntent(fields: { created: number; customer: string | null; payment_method: string } & StripeObject): StripeObject {
  const seti = example('setup_intent');
  const id = newId('seti');
  Object.assign(seti, {
    id,
    client_secret: `${id}_secret_${randomBytes(12).toString('hex')}`,
    last_setup_error: null,
    next_action: null,
    payment_method_configuration_details: null,
    latest_attempt: null,
    status: 'processing',
    usage: 'off_session',
    ...fields,
  });
  return seti;
}
