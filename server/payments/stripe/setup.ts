import Stripe from 'stripe';
import { z } from 'zod';
import type { ChallengeRequired, LookupResult, NotActed, SettledResult, StoreInput } from '../gateway';
import { cardSummary, read, same, StripeMismatch } from './answers';
import { CANCELLED_PARAM, checkoutLocale } from './checkout';
import type { StripeContext } from './context';
import { notActed } from './refusals';

// Saving a card with Stripe (docs/processors.md "Saved cards"): a SetupIntent on a Stripe
// Customer, confirmed on Stripe Checkout's page in `mode: setup`, by redirect, as a
// payment's card is taken. Stripe lets a PaymentMethod be used again only while it is
// attached to a Customer: the card is saved under the Customer of the client it is for
// (made once per client and account, payments/processor-customers.ts), or under one of its
// own when no client is named. The customer's way to Stripe is the store's challenge
// (`redirect`); its second half (`resume`, or a lookup of the resumed call) reads the
// session again by id, never from what the customer brought back, and answers the
// PaymentMethod's id, which later charges are made with (off-session.ts).

const paymentMethodSchema = z.object({
  id: z.string().startsWith('pm_'),
  object: z.literal('payment_method'),
  customer: z.string().nullable(),
  card: z.object({ brand: z.string().nullish(), last4: z.string().nullish(), exp_month: z.number().int().nullish(), exp_year: z.number().int().nullish() }).nullish(),
});

const setupIntentSchema = z.object({
  id: z.string().startsWith('seti_'),
  object: z.literal('setup_intent'),
  status: z.string(),
  customer: z.string().nullable(),
  payment_method: z.union([z.string(), paymentMethodSchema]).nullable(),
});

const setupSessionSchema = z.object({
  id: z.string().startsWith('cs_'),
  object: z.literal('checkout.session'),
  mode: z.literal('setup'),
  status: z.enum(['open', 'complete', 'expired']).nullable(),
  customer: z.string().nullable(),
  client_reference_id: z.string().nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
  url: z.string().nullable(),
  setup_intent: z.union([z.string(), setupIntentSchema]).nullable(),
});

type SetupSession = z.infer<typeof setupSessionSchema>;

export type SavedPaymentMethod = z.infer<typeof paymentMethodSchema>;

/** A PaymentMethod as Stripe holds it: its Customer, its card. */
export async function retrievePaymentMethod(ctx: StripeContext, id: string): Promise<SavedPaymentMethod> {
  const pm = read(paymentMethodSchema, await ctx.stripe.paymentMethods.retrieve(id), 'the PaymentMethod');
  same('payment_method.id', id, pm.id);
  return pm;
}

/** A Customer for one of our clients (`reference` keeps a repeat to one), or for one saved card. */
export async function createCustomer(ctx: StripeContext, reference: string, metadata: Record<string, string>): Promise<{ customer: string } | NotActed> {
  try {
    const made = read(z.object({ id: z.string().startsWith('cus_') }), await ctx.stripe.customers.create({ metadata }, { idempotencyKey: reference }), 'the Customer');
    return { customer: made.id };
  } catch (error) {
    const refusal = notActed(error);
    if (refusal) return refusal;
    throw error;
  }
}

function setupParams(input: Pick<StoreInput, 'reference' | 'language'>, customer: string, returnUrl: string): Stripe.Checkout.SessionCreateParams {
  const cancel = new URL(returnUrl);
  cancel.searchParams.set(CANCELLED_PARAM, 'cancelled');
  const locale = checkoutLocale(input.language);
  return {
    mode: 'setup',
    customer,
    allowed_payment_method_types: ['card'],
    setup_intent_data: { metadata: { reference: input.reference } },
    metadata: { reference: input.reference },
    client_reference_id: input.reference,
    success_url: returnUrl,
    cancel_url: cancel.href,
    ...(locale ? { locale } : {}),
  };
}

/** The session's redirect: to Stripe's page, where the customer gives the card once. */
export async function setupStore(ctx: StripeContext, input: StoreInput): Promise<ChallengeRequired | NotActed> {
  if (Object.keys(input.fields).length > 0) return { outcome: 'not_acted', reason: 'card numbers are never sent to Stripe: the card is given on Stripe’s page' };
  if (!input.returnUrl) return { outcome: 'not_acted', reason: 'a card is saved with Stripe on Stripe’s page, which needs a page to return to (the hosted save page)' };
  const customer = input.customer ? { customer: input.customer } : await createCustomer(ctx, `${input.reference}_customer`, { reference: input.reference });
  if ('outcome' in customer) return customer;
  const params = setupParams(input, customer.customer, input.returnUrl);
  try {
    const session = read(setupSessionSchema, await ctx.stripe.checkout.sessions.create(params, { idempotencyKey: input.reference }), 'the Checkout Session');
    same('client_reference_id', input.reference, session.client_reference_id);
    same('customer', customer.customer, session.customer);
    if (session.status !== 'open' || !session.url) throw new Error(`Checkout Session ${session.id} is ${session.status}, with no page to send the customer to`);
    return { outcome: 'challenge', challenge: session.id, processorId: session.id, redirect: { url: session.url, method: 'GET' } };
  } catch (error) {
    const refusal = notActed(error);
    if (refusal) return refusal;
    throw error;
  }
}

async function retrieveSetup(ctx: StripeContext, id: string): Promise<SetupSession> {
  const session = read(setupSessionSchema, await ctx.stripe.checkout.sessions.retrieve(id, { expand: ['setup_intent.payment_method'] }), 'the Checkout Session');
  same('id', id, session.id);
  same('metadata.reference', session.client_reference_id, session.metadata?.reference);
  return session;
}

/** What the session came to: the card saved on its Customer, not saved, or (open) not decided. */
function setupOutcome(session: SetupSession): SettledResult | null {
  if (session.status === 'expired') return { outcome: 'declined', card: null };
  const intent = typeof session.setup_intent === 'object' ? session.setup_intent : null;
  if (session.status !== 'complete' || !intent) return null;
  same('setup_intent.status', 'succeeded', intent.status);
  same('setup_intent.customer', session.customer, intent.customer);
  const pm = typeof intent.payment_method === 'object' ? intent.payment_method : null;
  if (!pm) throw new StripeMismatch('setup_intent.payment_method', 'the saved PaymentMethod', intent.payment_method);
  // A PaymentMethod not attached to the Customer could never be charged again: not believed saved.
  same('payment_method.customer', session.customer, pm.customer);
  return { outcome: 'approved', reference: pm.id, card: cardSummary(pm.card) };
}

/**
 * The customer is back (or the attempt is over on our side): the session read again by id.
 * One still open is expired first (the customer left Stripe's page without saving), then
 * read again: Stripe refuses to expire one completed meanwhile, and the read finds the card.
 */
async function endedSetup(ctx: StripeContext, id: string): Promise<SettledResult> {
  const session = await retrieveSetup(ctx, id);
  const outcome = setupOutcome(session);
  if (outcome) return outcome;
  try {
    await ctx.stripe.checkout.sessions.expire(id);
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
  }
  const again = setupOutcome(await retrieveSetup(ctx, id));
  if (!again) throw new Error(`Checkout Session ${id} is neither complete nor expired after expiring it`);
  return again;
}

/**
 * `resume` of a store's challenge: `challenge` is the setup session's id. The card was
 * saved (or not) by the customer on Stripe's page, not by these reads: a refused read
 * (a rate limit, a key rolled meanwhile) proves nothing saved or not, so every error is an
 * unknown outcome, for reconciliation to read the session again.
 */
export async function setupResume(ctx: StripeContext, challenge: string): Promise<SettledResult | NotActed> {
  if (!challenge.startsWith('cs_')) return { outcome: 'not_acted', reason: 'Stripe resumes only a card being saved on Checkout’s page' };
  return endedSetup(ctx, challenge);
}

/** A lookup of a resumed store call whose answer was lost, by its session. */
export async function lookupSetup(ctx: StripeContext, id: string): Promise<LookupResult> {
  const outcome = await endedSetup(ctx, id);
  return outcome.outcome === 'approved' ? { status: 'succeeded', reference: outcome.reference, card: outcome.card } : { status: 'failed', reason: 'declined', card: outcome.card };
}
