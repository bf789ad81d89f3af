import type Stripe from 'stripe';
import { z } from 'zod';
import type { HostedFieldsRequired, LookupResult, NotActed, PayInput, ReturnInput, SettledResult } from '../gateway';
import { cardSummary, checkPayment, latestCharge, type PaymentIntent, paymentIntentSchema, read, same } from './answers';
import { authenticationOf } from './checkout';
import type { StripeContext } from './context';
import { expectedOf } from './pay';
import { notActed } from './refusals';
import { descriptorParams, type StripeSettings } from './settings';
import { toStripe } from './units';

// Card entry by Stripe's Payment Element in our page (`hosted-fields`, docs/processors.md
// "Payment Element"): Stripe.js takes the card in Stripe's own frames; our server never sees
// it. The page's pay post creates a PaymentIntent without a card (our reference as its
// Idempotency-Key and `metadata[reference]`, as every payment of ours) and hands its
// client_secret to the page only; Stripe.js confirms it (3-D Secure included, where the
// issuer asks) and brings the customer to the call's return route. There, and for a webhook
// or a lookup, the PaymentIntent is read again from Stripe by the id recorded at `pay`:
// nothing the browser says is believed. An attempt that is over without a payment is
// cancelled at Stripe before it is recorded as declined, so the page's client_secret can
// never pay it afterwards.

/** Stripe.js, its frames and its API, as the page's CSP must allow them (Stripe's CSP guide). */
export const STRIPE_JS_ORIGIN = 'https://js.stripe.com';
export const STRIPE_JS_SUBDOMAINS = 'https://*.js.stripe.com';
export const STRIPE_API_ORIGIN = 'https://api.stripe.com';

/** What the page's pay post sends when Stripe's fields are mounted: no card, a marker. */
export const HOSTED_FIELDS = 'hosted_fields';

const withSecret = z.object({ client_secret: z.string().regex(/^pi_[A-Za-z0-9]+_secret_[A-Za-z0-9]+$/) });

function elementParams(settings: StripeSettings, input: Pick<PayInput, 'amount' | 'currency' | 'capture' | 'reference'>): Stripe.PaymentIntentCreateParams {
  return {
    amount: toStripe(input.amount, input.currency),
    currency: input.currency.toLowerCase(),
    // Cards, Apple Pay and Google Pay (wallets are cards to Stripe); the Payment Element is created with the same.
    allowed_payment_method_types: ['card'],
    capture_method: input.capture ? 'automatic' : 'manual',
    metadata: { reference: input.reference },
    ...descriptorParams(settings),
  };
}

/** The pay post with Stripe's fields mounted: a PaymentIntent for Stripe.js to confirm. */
export async function elementPay(ctx: StripeContext, input: PayInput): Promise<HostedFieldsRequired | NotActed> {
  if (Object.keys(input.fields).some((name) => name !== HOSTED_FIELDS)) return { outcome: 'not_acted', reason: 'the Payment Element takes the card in Stripe’s fields: nothing else is sent' };
  if (!ctx.settings.publishableKey) return { outcome: 'not_acted', reason: 'no publishable key: Stripe’s fields are not offered' };
  const params = elementParams(ctx.settings, input);
  ctx.sent.remember(input.reference, { kind: 'element', params, at: ctx.now().getTime() });
  try {
    const raw = await ctx.stripe.paymentIntents.create(params, { idempotencyKey: input.reference });
    const pi = read(paymentIntentSchema, raw, 'the PaymentIntent');
    checkPayment(pi, expectedOf(params));
    const { client_secret: secret } = read(withSecret, raw, 'the PaymentIntent’s client_secret');
    same('client_secret', pi.id, secret.slice(0, secret.indexOf('_secret_')));
    return { outcome: 'hosted_fields', secret, processorId: pi.id };
  } catch (error) {
    const refusal = notActed(error);
    if (refusal) return refusal;
    throw error;
  }
}

type Expected = ReturnType<typeof expectedOf>;

/** What this process knows a PaymentIntent of `reference` must say (after a restart: our reference only). */
function expectedFor(ctx: StripeContext, reference: string, pi: PaymentIntent): Expected {
  const sent = ctx.sent.get(reference);
  if (sent?.kind === 'element') return expectedOf(sent.params);
  return { reference, amount: pi.amount, currency: pi.currency, capture: pi.capture_method !== 'manual' };
}

async function retrieve(ctx: StripeContext, id: string): Promise<PaymentIntent> {
  const pi = read(paymentIntentSchema, await ctx.stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] }), 'the PaymentIntent');
  same('id', id, pi.id);
  return pi;
}

/** Paid (or held), with the card and what 3-D Secure came to, as Stripe's charge says. */
function elementApproved(pi: PaymentIntent): SettledResult {
  const authentication = authenticationOf(pi);
  return { outcome: 'approved', reference: pi.id, card: cardSummary(latestCharge(pi)?.payment_method_details?.card), ...(authentication ? { authentication } : {}) };
}

const declined = (pi: PaymentIntent): SettledResult => ({
  outcome: pi.last_payment_error?.decline_code === 'insufficient_funds' ? 'insufficient_funds' : 'declined',
  card: cardSummary(latestCharge(pi)?.payment_method_details?.card),
});

/** Statuses in which the customer may still pay it: ended (cancelled) once the attempt is over on our side. */
const OPEN = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action']);

/**
 * The PaymentIntent of a call, read by its id and checked against the request. `ending`:
 * what is still open is cancelled at Stripe first, then read again (one Stripe paid
 * meanwhile refuses the cancel, and the read finds it paid). `requires_action` (the
 * customer still at the issuer's page) is ended only by a lookup, after the call's wait.
 */
async function elementOutcome(ctx: StripeContext, reference: string, id: string, ending: (pi: PaymentIntent) => boolean): Promise<SettledResult | { outcome: 'pending' }> {
  let pi = await retrieve(ctx, id);
  const expected = expectedFor(ctx, reference, pi);
  checkPayment(pi, expected);
  if (OPEN.has(pi.status) && ending(pi)) {
    await ctx.stripe.paymentIntents.cancel(pi.id, { cancellation_reason: 'abandoned' }).catch((error: unknown) => {
      if (!notActed(error)) throw error;
    });
    pi = await retrieve(ctx, id);
    checkPayment(pi, expected);
  }
  if (pi.status === 'succeeded' || pi.status === 'requires_capture') return elementApproved(pi);
  if (pi.status === 'canceled') return declined(pi);
  return { outcome: 'pending' };
}

/** The customer back on the call's return route from Stripe.js (or from the issuer's page): Stripe is asked, by the id recorded at `pay`. */
export async function elementReturn(ctx: StripeContext, input: ReturnInput): Promise<SettledResult | { outcome: 'pending' } | NotActed> {
  if (!input.processorId?.startsWith('pi_')) return { outcome: 'not_acted', reason: 'no PaymentIntent was started for this call' };
  // Stripe.js came back with an answer (a decline, a failed 3-D Secure, fields never confirmed): the attempt is over.
  return elementOutcome(ctx, input.reference, input.processorId, (pi) => pi.status !== 'requires_action');
}

/** A lookup of the call (after its wait, or before another attempt): whatever is still open is ended. */
export async function lookupElement(ctx: StripeContext, reference: string, id: string): Promise<LookupResult> {
  const outcome = await elementOutcome(ctx, reference, id, () => true);
  if (outcome.outcome === 'pending') throw new Error(`PaymentIntent ${id} is not decided yet`);
  if (outcome.outcome === 'approved') return { status: 'succeeded', reference: outcome.reference, card: outcome.card, ...(outcome.authentication ? { authentication: outcome.authentication } : {}) };
  return { status: 'failed', reason: outcome.outcome, card: outcome.card };
}

/** A PaymentIntent named by `payment_intent.succeeded` (or a hold's `amount_capturable_updated`), as a lookup of its call would answer; null while it is not paid. */
export async function elementSucceeded(ctx: StripeContext, id: string): Promise<{ reference: string; result: Extract<LookupResult, { status: 'succeeded' }> } | null> {
  const pi = await retrieve(ctx, id);
  const reference = pi.metadata.reference;
  if (!reference || (pi.status !== 'succeeded' && pi.status !== 'requires_capture')) return null;
  checkPayment(pi, expectedFor(ctx, reference, pi));
  const approved = elementApproved(pi);
  if (approved.outcome !== 'approved') return null;
  return { reference, result: { status: 'succeeded', reference: approved.reference, card: approved.card, ...(approved.authentication ? { authentication: approved.authentication } : {}) } };
}
