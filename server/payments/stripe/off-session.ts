import Stripe from 'stripe';
import type { AuthenticationRequired, Gateway, NotActed, SettledResult } from '../gateway';
import { cardSummary, checkPayment, paymentIntentSchema, paymentMethodSchema, read } from './answers';
import type { StripeContext } from './context';
import { declineOutcome, expectedOf, paymentOutcome } from './pay';
import { notActed } from './refusals';
import { descriptorParams, type StripeSettings } from './settings';
import { retrievePaymentMethod } from './setup';
import { toStripe } from './units';

// A charge of a saved card, started by the merchant without the customer (the API's charge
// of an authorization, a subscription's renewal): one PaymentIntent on the card's Customer,
// `off_session: true` and confirmed at once. Our reference is its Idempotency-Key and its
// `metadata[reference]`, so a repeat acts once and a lookup finds it (lookup.ts treats it as
// any payment). What Stripe answers is recorded: paid, or declined with the issuer's code
// mapped as a payment's is (pay.ts), except `authentication_required`: the issuer wants the
// cardholder, so the PaymentIntent is kept for the customer to confirm on our hosted page
// (confirm.ts).

type ChargeInput = Parameters<Gateway['charge']>[0];

const PAYMENT_METHOD = /^pm_[A-Za-z0-9_]{1,200}$/;

function offSessionParams(settings: StripeSettings, input: Pick<ChargeInput, 'amount' | 'currency' | 'reference'>, customer: string, paymentMethod: string): Stripe.PaymentIntentCreateParams {
  return {
    amount: toStripe(input.amount, input.currency),
    currency: input.currency.toLowerCase(),
    customer,
    payment_method: paymentMethod,
    off_session: true,
    confirm: true,
    allowed_payment_method_types: ['card'],
    metadata: { reference: input.reference },
    ...descriptorParams(settings),
    expand: ['latest_charge'],
  };
}

export async function chargeSaved(ctx: StripeContext, input: ChargeInput): Promise<SettledResult | AuthenticationRequired | NotActed> {
  if (!PAYMENT_METHOD.test(input.method)) return { outcome: 'not_acted', reason: 'a Stripe charge needs a saved PaymentMethod (pm_…)' };
  try {
    const pm = await retrievePaymentMethod(ctx, input.method);
    // Stripe would refuse it: a PaymentMethod not attached to a Customer is never used again.
    if (!pm.customer) return { outcome: 'not_acted', reason: `${pm.id} is attached to no Customer, so Stripe cannot charge it again` };
    const params = offSessionParams(ctx.settings, input, pm.customer, pm.id);
    ctx.sent.remember(input.reference, { kind: 'pay', params, at: ctx.now().getTime() });
    const expected = expectedOf(params);
    try {
      const pi = read(paymentIntentSchema, await ctx.stripe.paymentIntents.create(params, { idempotencyKey: input.reference }), 'the PaymentIntent');
      checkPayment(pi, expected);
      const outcome = paymentOutcome(pi);
      // Off-session Stripe never asks for 3-D Secure in the answer (it declines with authentication_required instead).
      if (outcome.outcome === 'challenge') throw new Error(`PaymentIntent ${pi.id} asks for the customer although it was off-session`);
      return outcome;
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError) return needsCustomer(error, expected) ?? declineOutcome(error, expected);
      throw error;
    }
  } catch (error) {
    const refusal = notActed(error);
    if (refusal) return refusal;
    throw error;
  }
}

/** A decline that only the cardholder can lift: the PaymentIntent it names (checked as ours), kept for the customer's confirmation. */
export function needsCustomer(error: Stripe.errors.StripeCardError, expected: ReturnType<typeof expectedOf>): AuthenticationRequired | null {
  if (error.code !== 'authentication_required' || !error.payment_intent) return null;
  const pi = read(paymentIntentSchema, error.payment_intent, 'the PaymentIntent that needs authentication');
  checkPayment(pi, expected);
  const method = error.payment_method ? read(paymentMethodSchema, error.payment_method, 'its PaymentMethod') : null;
  return { outcome: 'authentication_required', processorId: pi.id, card: cardSummary(method?.card) };
}
