import type { ActionInput, ActionResult, NotActed } from '../gateway';
import { holdExpiresAt, type PaymentIntent, paymentIntentSchema, read, type Refund, refundSchema, same, StripeMismatch } from './answers';
import type { StripeContext } from './context';
import { toStripe, unchargeable } from './units';

// Capture, refund and void of a card payment (`payment` is its PaymentIntent's id). Each is
// checked against what Stripe holds before it is sent, so that what Stripe would refuse, or
// what our books should never ask, is refused here with a clear reason and nothing sent:
// a second capture (Stripe captures a PaymentIntent once; a partial capture releases the
// rest), a capture above the hold, a refund above what is left, an amount Stripe cannot
// express in the payment's currency (units.ts). Each carries our reference
// as its Idempotency-Key and in `metadata` (the capture's in the PaymentIntent's
// `metadata[capture_reference]`), so a repeat of the same reference finds its own action
// and answers it again instead of refusing it. Stripe's own refusals (a 4xx) become
// `not_acted` in gateway.ts.

/** A refund that Stripe may still make, or made: what it takes from the refundable amount. */
const LIVE_REFUND = new Set(['pending', 'requires_action', 'succeeded']);

async function retrieve(ctx: StripeContext, payment: string): Promise<PaymentIntent> {
  const pi = read(paymentIntentSchema, await ctx.stripe.paymentIntents.retrieve(payment, { expand: ['latest_charge'] }), 'the PaymentIntent');
  same('id', payment, pi.id);
  return pi;
}

const refuse = (reason: string): NotActed => ({ outcome: 'not_acted', reason });

function capturedOutcome(pi: PaymentIntent, input: ActionInput): ActionResult {
  same('status', 'succeeded', pi.status);
  same('amount_received', input.amount, pi.amount_received);
  same('metadata.capture_reference', input.reference, pi.metadata.capture_reference);
  return { ok: true, reference: pi.id };
}

export async function capture(ctx: StripeContext, input: ActionInput): Promise<ActionResult | NotActed> {
  const pi = await retrieve(ctx, input.payment);
  if (pi.metadata.capture_reference === input.reference) return capturedOutcome(pi, input);
  if (pi.status === 'succeeded' || pi.amount_received > 0) return refuse(`Stripe captures a PaymentIntent once, and ${pi.id} was captured already (${pi.amount_received}); the rest of its hold was released`);
  if (pi.status !== 'requires_capture') return refuse(`${pi.id} holds nothing to capture (${pi.status})`);
  if (input.amount > pi.amount_capturable) return refuse(`${input.amount} is more than the ${pi.amount_capturable} held on ${pi.id}`);
  const unsendable = unchargeable(input.amount, pi.currency);
  if (unsendable) return unsendable;
  ctx.sent.remember(input.reference, { kind: 'capture', payment: input.payment, at: ctx.now().getTime() });
  const answer = await ctx.stripe.paymentIntents.capture(input.payment, { amount_to_capture: toStripe(input.amount, pi.currency), metadata: { capture_reference: input.reference } }, { idempotencyKey: input.reference });
  return capturedOutcome(read(paymentIntentSchema, answer, 'the captured PaymentIntent'), input);
}

/** Every refund of a PaymentIntent (Stripe lists at most 100 a page). */
async function refundsOf(ctx: StripeContext, payment: string): Promise<Refund[]> {
  const all: Refund[] = [];
  for await (const refund of ctx.stripe.refunds.list({ payment_intent: payment, limit: 100 })) all.push(read(refundSchema, refund, 'a refund'));
  return all;
}

function refundOutcome(refund: Refund, input: Pick<ActionInput, 'payment' | 'amount' | 'reference'>): ActionResult {
  same('refund.payment_intent', input.payment, refund.payment_intent);
  same('refund.amount', input.amount, refund.amount);
  same('refund.metadata.reference', input.reference, refund.metadata.reference);
  // A pending refund was accepted; if the bank returns it later, Stripe says so by webhook (`refund.failed`).
  if (LIVE_REFUND.has(refund.status)) return { ok: true, reference: refund.id };
  return { ok: false, reason: `Stripe's refund ${refund.id} ${refund.status}${refund.failure_reason ? ` (${refund.failure_reason})` : ''}` };
}

export async function refund(ctx: StripeContext, input: ActionInput): Promise<ActionResult | NotActed> {
  const refunds = await refundsOf(ctx, input.payment);
  const mine = refunds.find((r) => r.metadata.reference === input.reference);
  if (mine) return refundOutcome(mine, input);
  const pi = await retrieve(ctx, input.payment);
  if (pi.status !== 'succeeded') return refuse(`${pi.id} has nothing captured to refund (${pi.status})`);
  const left = pi.amount_received - refunds.filter((r) => LIVE_REFUND.has(r.status)).reduce((sum, r) => sum + r.amount, 0);
  if (input.amount > left) return refuse(`${input.amount} is more than the ${left} left to refund on ${pi.id}`);
  const unsendable = unchargeable(input.amount, pi.currency);
  if (unsendable) return unsendable;
  ctx.sent.remember(input.reference, { kind: 'refund', payment: input.payment, at: ctx.now().getTime() });
  const answer = await ctx.stripe.refunds.create({ payment_intent: input.payment, amount: toStripe(input.amount, pi.currency), metadata: { reference: input.reference } }, { idempotencyKey: input.reference });
  const made = read(refundSchema, answer, 'the refund');
  same('refund.currency', pi.currency, made.currency);
  return refundOutcome(made, input);
}

export async function voidHold(ctx: StripeContext, input: ActionInput): Promise<ActionResult | NotActed> {
  const pi = await retrieve(ctx, input.payment);
  // Cancelling moves no money, so a hold found cancelled is this void's repeat, or one whose work is done.
  if (pi.status === 'canceled') return { ok: true, reference: pi.id };
  // After a partial capture Stripe released the rest of the hold itself: voiding that rest is done, with nothing to send.
  if (pi.status === 'succeeded' && pi.capture_method === 'manual' && pi.amount_received > 0 && input.amount === pi.amount - pi.amount_received) return { ok: true, reference: pi.id };
  if (pi.status !== 'requires_capture') return refuse(`only a hold can be voided, and ${pi.id} is ${pi.status}`);
  if (pi.amount_capturable !== input.amount) throw new StripeMismatch('amount_capturable', input.amount, pi.amount_capturable);
  ctx.sent.remember(input.reference, { kind: 'void', payment: input.payment, at: ctx.now().getTime() });
  const answer = await ctx.stripe.paymentIntents.cancel(input.payment, {}, { idempotencyKey: input.reference });
  const canceled = read(paymentIntentSchema, answer, 'the cancelled PaymentIntent');
  same('id', input.payment, canceled.id);
  same('status', 'canceled', canceled.status);
  return { ok: true, reference: canceled.id };
}

/**
 * When the hold on a payment expires: Stripe's `capture_before` on its charge (7 days for
 * most online card payments, other periods for some cards and with extended
 * authorization), null when Stripe does not say. For the hold-expiry job of a later slice.
 */
export async function holdExpiry(ctx: StripeContext, payment: string): Promise<Date | null> {
  return holdExpiresAt(await retrieve(ctx, payment));
}
