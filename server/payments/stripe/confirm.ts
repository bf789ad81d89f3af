import Stripe from 'stripe';
import { z } from 'zod';
import type { ConfirmInput, NotActed, RedirectRequired, SettledResult } from '../gateway';
import { checkPayment, type PaymentIntent, paymentIntentSchema, read } from './answers';
import type { StripeContext } from './context';
import { declineOutcome, paymentOutcome } from './pay';
import { notActed } from './refusals';

// A saved card's off-session charge that Stripe declined with `authentication_required`
// (off-session.ts) is finished with the customer present, as Stripe's guide to charging
// saved cards says: the PaymentIntent is confirmed again with the PaymentMethod of its last
// error and a `return_url`, and the customer follows `next_action.redirect_to_url` to the
// issuer's authentication (Stripe's hooks host); back on our return route, the
// PaymentIntent is read again by its id (confirmed): nothing the return's query says is
// believed. Every answer is checked against the charge (amount, currency, our reference).

/** Where Stripe sends a customer for 3-D Secure (`next_action.redirect_to_url`). */
export const STRIPE_AUTHENTICATION_ORIGIN = 'https://hooks.stripe.com';

/** The PaymentMethod of the last failed attempt: the card to confirm with again. */
const lastMethod = z.object({ last_payment_error: z.object({ payment_method: z.object({ id: z.string().startsWith('pm_') }).nullish() }).nullish() });

const expectedOf = (input: ConfirmInput) => ({ amount: input.amount, currency: input.currency, reference: input.reference, capture: true });

async function retrieved(ctx: StripeContext, input: ConfirmInput): Promise<{ pi: PaymentIntent; raw: unknown }> {
  const raw = await ctx.stripe.paymentIntents.retrieve(input.payment, { expand: ['latest_charge'] });
  const pi = read(paymentIntentSchema, raw, 'the PaymentIntent to confirm');
  if (pi.id !== input.payment) throw new Error(`Stripe answered ${pi.id} for ${input.payment}`);
  checkPayment(pi, expectedOf(input));
  return { pi, raw };
}

/** Where the PaymentIntent stands: settled, to the issuer (a redirect), or undecided. */
function standing(pi: PaymentIntent): SettledResult | RedirectRequired | { outcome: 'pending' } {
  if (pi.status === 'processing' || pi.status === 'requires_confirmation') return { outcome: 'pending' };
  const outcome = paymentOutcome(pi);
  if (outcome.outcome !== 'challenge') return outcome;
  return outcome.redirect ? { outcome: 'redirect', redirect: { url: outcome.redirect.url, method: 'GET' }, processorId: pi.id } : { outcome: 'pending' };
}

export async function confirmPayment(ctx: StripeContext, input: ConfirmInput & { returnUrl: string }): Promise<RedirectRequired | SettledResult | NotActed> {
  try {
    const { pi, raw } = await retrieved(ctx, input);
    // Already confirmed (another tab), or waiting at the issuer: where it stands, without a new confirmation.
    if (pi.status !== 'requires_payment_method' && pi.status !== 'requires_confirmation') {
      const now = standing(pi);
      return now.outcome === 'pending' ? { outcome: 'not_acted', reason: `PaymentIntent ${pi.id} is ${pi.status}` } : now;
    }
    const method = lastMethod.parse(raw).last_payment_error?.payment_method?.id;
    const params: Stripe.PaymentIntentConfirmParams = { return_url: input.returnUrl, expand: ['latest_charge'], ...(method ? { payment_method: method } : {}) };
    try {
      const confirmed = read(paymentIntentSchema, await ctx.stripe.paymentIntents.confirm(pi.id, params), 'the confirmed PaymentIntent');
      checkPayment(confirmed, expectedOf(input));
      const now = standing(confirmed);
      return now.outcome === 'pending' ? { outcome: 'not_acted', reason: `PaymentIntent ${pi.id} gave no way to authenticate` } : now;
    } catch (error) {
      if (error instanceof Stripe.errors.StripeCardError) return declineOutcome(error, expectedOf(input));
      throw error;
    }
  } catch (error) {
    const refusal = notActed(error);
    if (refusal) return refusal;
    throw error;
  }
}

/** The PaymentIntent as Stripe holds it now; a customer still at the issuer's page is `pending`. */
export async function confirmedPayment(ctx: StripeContext, input: ConfirmInput): Promise<SettledResult | { outcome: 'pending' }> {
  const now = standing((await retrieved(ctx, input)).pi);
  return now.outcome === 'redirect' ? { outcome: 'pending' } : now;
}
