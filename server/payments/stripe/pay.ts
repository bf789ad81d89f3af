import Stripe from 'stripe';
import { CARD_FIELDS } from '../../domain/card-fields';
import type { ChallengeRequired, NotActed, PayInput, SettledResult } from '../gateway';
import { cardSummary, checkPayment, latestCharge, type PaymentIntent, paymentIntentSchema, paymentMethodSchema, read } from './answers';
import type { StripeContext } from './context';
import { notActed } from './refusals';
import { descriptorParams, type StripeSettings } from './settings';
import { ourUnits, toStripe } from './units';

// A card payment: one PaymentIntent created and confirmed at once with the PaymentMethod the
// customer's browser made with Stripe.js (never a card number: Stripe's fields take it, and
// our server never sees it). Our reference is the Idempotency-Key, so a repeat acts once,
// and is kept in `metadata[reference]`, so the PaymentIntent can be found by it.

/** A challenge is the PaymentIntent itself: its id is what a later `resume` reads back. */
export interface StripeChallenge extends ChallengeRequired {
  /** Where to send the customer for 3-D Secure (`next_action.redirect_to_url`); null: Stripe.js must handle it in the page. */
  redirect: { url: string } | null;
}

export type StripePayResult = SettledResult | StripeChallenge;

type Expected = Parameters<typeof checkPayment>[1];

/** What an answer to these parameters must say. */
export const expectedOf = (params: Stripe.PaymentIntentCreateParams): Expected => ({
  amount: ourUnits(params.amount, params.currency),
  currency: params.currency,
  reference: String(params.metadata!.reference),
  capture: params.capture_method !== 'manual',
});

const PAYMENT_METHOD = /^pm_[A-Za-z0-9_]{1,200}$/;

function paymentParams(settings: Pick<StripeSettings, 'returnUrl' | 'statementDescriptorSuffix'>, input: Pick<PayInput, 'amount' | 'currency' | 'capture' | 'reference'>, paymentMethod: string): Stripe.PaymentIntentCreateParams {
  return {
    amount: toStripe(input.amount, input.currency),
    currency: input.currency.toLowerCase(),
    payment_method: paymentMethod,
    allowed_payment_method_types: ['card'],
    confirm: true,
    capture_method: input.capture ? 'automatic' : 'manual',
    metadata: { reference: input.reference },
    ...descriptorParams(settings),
    expand: ['latest_charge'],
    ...(settings.returnUrl ? { return_url: settings.returnUrl } : {}),
  };
}

/** What a PaymentIntent of ours says of its payment (checked against the request by the caller). */
export function paymentOutcome(pi: PaymentIntent): StripePayResult {
  const card = cardSummary(latestCharge(pi)?.payment_method_details?.card);
  switch (pi.status) {
    case 'succeeded':
    case 'requires_capture':
      return { outcome: 'approved', reference: pi.id, card };
    case 'requires_action':
      return { outcome: 'challenge', challenge: pi.id, redirect: pi.next_action?.redirect_to_url?.url ? { url: pi.next_action.redirect_to_url.url } : null };
    case 'requires_payment_method':
    case 'canceled':
      return { outcome: pi.last_payment_error?.decline_code === 'insufficient_funds' ? 'insufficient_funds' : 'declined', card };
    default:
      // `processing` (or a confirmation not made): undecided, so the outcome is unknown.
      throw new Error(`Stripe has not decided PaymentIntent ${pi.id} yet (${pi.status})`);
  }
}

/**
 * A 402 card error: declined by the issuer (or by Stripe's fraud screening). Insufficient
 * funds is told apart; every other reason, fraud-related ones first, is a plain decline.
 */
export function declineOutcome(error: Stripe.errors.StripeCardError, expected: Expected): SettledResult {
  if (error.payment_intent) checkPayment(read(paymentIntentSchema, error.payment_intent, 'the declined PaymentIntent'), expected);
  const method = error.payment_method ? read(paymentMethodSchema, error.payment_method, 'the declined PaymentMethod') : null;
  const card = cardSummary(method?.card);
  return { outcome: error.decline_code === 'insufficient_funds' ? 'insufficient_funds' : 'declined', card };
}

/** Raw card fields (even empty), or no PaymentMethod id: refused before anything is sent; a Stripe payment carries a PaymentMethod id only. */
function refuseFields(fields: Record<string, string>): NotActed | null {
  if (CARD_FIELDS.some((name) => fields[name] !== undefined)) return { outcome: 'not_acted', reason: 'card numbers are never sent to Stripe: pay with a PaymentMethod from Stripe.js' };
  if (!PAYMENT_METHOD.test(fields.payment_method ?? '')) return { outcome: 'not_acted', reason: 'a Stripe payment needs a PaymentMethod id (pm_…) from Stripe.js' };
  return null;
}

export async function pay(ctx: StripeContext, input: PayInput): Promise<StripePayResult | NotActed> {
  const refused = refuseFields(input.fields);
  if (refused) return refused;
  const params = paymentParams(ctx.settings, input, input.fields.payment_method!);
  const expected = expectedOf(params);
  ctx.sent.remember(input.reference, { kind: 'pay', params, at: ctx.now().getTime() });
  try {
    const pi = read(paymentIntentSchema, await ctx.stripe.paymentIntents.create(params, { idempotencyKey: input.reference }), 'the PaymentIntent');
    checkPayment(pi, expected);
    return paymentOutcome(pi);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError) return declineOutcome(error, expected);
    const refusal = notActed(error);
    if (refusal) return refusal;
    throw error;
  }
}
