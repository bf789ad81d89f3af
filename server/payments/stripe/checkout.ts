import Stripe from 'stripe';
import { z } from 'zod';
import type { Authentication, LookupResult, NotActed, PayInput, RedirectRequired, ReturnInput, SettledResult } from '../gateway';
import { cardSummary, checkPayment, latestCharge, type PaymentIntent, paymentIntentSchema, read, same } from './answers';
import type { StripeContext } from './context';
import { isServerError, notActed } from './refusals';
import { descriptorParams, type StripeSettings } from './settings';
import { ourUnits, toStripe } from './units';

// Card entry by Stripe Checkout, by redirect (docs/processors.md "Checkout by redirect"): the
// page's pay post creates a Checkout Session and the customer goes to Stripe's page, which
// takes the card and runs 3-D Secure; the PaymentIntent appears only when the customer
// pays, so the id known at `pay` is the session's (recorded on the call as its processor
// id). Whatever comes back (the return, a webhook, a lookup) is read again from Stripe by
// that id: the query of a return is never believed. Our reference is the session's
// Idempotency-Key, its `client_reference_id` and `metadata[reference]`, and the
// PaymentIntent's `metadata[reference]` (so a lookup after a restart finds the payment by
// listing PaymentIntents, lookup.ts).

/** Added to `cancel_url`: the customer left Stripe's page; the session is ended, then read. */
export const CANCELLED_PARAM = 'checkout';

/** Stripe's locales for the page's languages (`au` is Australian English). */
const LOCALES: Record<string, Stripe.Checkout.SessionCreateParams.Locale> = { en: 'en', es: 'es', fr: 'fr', au: 'en-GB' };

/** Stripe Checkout's locale for the page's language, if it has one. */
export const checkoutLocale = (language: string | undefined) => (language ? LOCALES[language] : undefined);

const sessionSchema = z.object({
  id: z.string().startsWith('cs_'),
  object: z.literal('checkout.session'),
  mode: z.string().nullish(),
  status: z.enum(['open', 'complete', 'expired']).nullable(),
  payment_status: z.string(),
  amount_total: z.number().int().nullable(),
  currency: z.string().nullable(),
  client_reference_id: z.string().nullable(),
  metadata: z.record(z.string(), z.string()).nullable(),
  url: z.string().nullable(),
  payment_intent: z.union([z.string(), paymentIntentSchema]).nullable(),
}).transform((s) => ({ ...s, amount_total: s.amount_total === null || s.currency === null ? s.amount_total : ourUnits(s.amount_total, s.currency) }));

export type CheckoutSession = z.infer<typeof sessionSchema>;

/** What a session of ours must say: our reference, and the amount and currency when this process sent it. */
interface Expected {
  reference: string;
  amount?: number;
  currency?: string;
  capture?: boolean;
}

function sessionParams(settings: StripeSettings, input: Pick<PayInput, 'amount' | 'currency' | 'capture' | 'reference' | 'language'>, returnUrl: string): Stripe.Checkout.SessionCreateParams {
  const cancel = new URL(returnUrl);
  cancel.searchParams.set(CANCELLED_PARAM, 'cancelled');
  const locale = checkoutLocale(input.language);
  return {
    mode: 'payment',
    // One line for the whole amount: the transaction's own lines stay ours (Stripe needs a name).
    line_items: [{ quantity: 1, price_data: { currency: input.currency.toLowerCase(), unit_amount: toStripe(input.amount, input.currency), product_data: { name: 'Payment' } } }],
    allowed_payment_method_types: ['card'],
    payment_intent_data: { ...(input.capture ? {} : { capture_method: 'manual' }), metadata: { reference: input.reference }, ...descriptorParams(settings) },
    metadata: { reference: input.reference },
    client_reference_id: input.reference,
    success_url: returnUrl,
    cancel_url: cancel.href,
    ...(locale ? { locale } : {}),
  };
}

const expectedOfSession = (params: Stripe.Checkout.SessionCreateParams): Expected => ({
  reference: params.client_reference_id!,
  amount: ourUnits(params.line_items![0]!.price_data!.unit_amount!, params.line_items![0]!.price_data!.currency),
  currency: params.line_items![0]!.price_data!.currency,
  capture: params.payment_intent_data?.capture_method !== 'manual',
});

function checkSession(session: CheckoutSession, expected: Expected): void {
  same('client_reference_id', expected.reference, session.client_reference_id);
  same('metadata.reference', expected.reference, session.metadata?.reference);
  if (expected.amount !== undefined) same('amount_total', expected.amount, session.amount_total);
  if (expected.currency !== undefined) same('currency', expected.currency.toLowerCase(), session.currency);
}

/** The session's redirect: to Stripe's page, by GET. */
export async function checkoutPay(ctx: StripeContext, input: PayInput): Promise<RedirectRequired | NotActed> {
  if (Object.keys(input.fields).length > 0) return { outcome: 'not_acted', reason: 'Stripe Checkout takes no fields: the card is entered on Stripe’s page' };
  if (!input.returnUrl) return { outcome: 'not_acted', reason: 'a Checkout payment needs a return URL' };
  const params = sessionParams(ctx.settings, input, input.returnUrl);
  ctx.sent.remember(input.reference, { kind: 'checkout', params, at: ctx.now().getTime() });
  try {
    const session = read(sessionSchema, await ctx.stripe.checkout.sessions.create(params, { idempotencyKey: input.reference }), 'the Checkout Session');
    checkSession(session, expectedOfSession(params));
    if (session.status !== 'open' || !session.url) throw new Error(`Checkout Session ${session.id} is ${session.status}, with no page to send the customer to`);
    return { outcome: 'redirect', redirect: { url: session.url, method: 'GET' }, processorId: session.id };
  } catch (error) {
    const refusal = notActed(error);
    if (refusal) return refusal;
    throw error;
  }
}

/** The session now, its PaymentIntent expanded with its charge (for the card and 3-D Secure). */
async function retrieveSession(ctx: StripeContext, id: string, expected: Expected): Promise<CheckoutSession> {
  const session = read(sessionSchema, await ctx.stripe.checkout.sessions.retrieve(id, { expand: ['payment_intent.latest_charge'] }), 'the Checkout Session');
  same('id', id, session.id);
  checkSession(session, expected);
  return session;
}

/** A session named by an event: read by id; our reference is the one Stripe holds (null: not one of ours). */
export async function sessionById(ctx: StripeContext, id: string): Promise<{ session: CheckoutSession; expected: Expected } | null> {
  const session = read(sessionSchema, await ctx.stripe.checkout.sessions.retrieve(id, { expand: ['payment_intent.latest_charge'] }), 'the Checkout Session');
  same('id', id, session.id);
  if (!session.client_reference_id) return null;
  const expected = expectedFor(ctx, session.client_reference_id);
  checkSession(session, expected);
  return { session, expected };
}

/**
 * Ends an open session, so the customer can no longer pay an attempt we have given up on,
 * then reads it again: Stripe refuses to expire a session completed meanwhile (a 400), and
 * the read then finds it paid.
 */
async function expireSession(ctx: StripeContext, id: string, expected: Expected): Promise<CheckoutSession> {
  try {
    await ctx.stripe.checkout.sessions.expire(id);
  } catch (error) {
    if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
  }
  return retrieveSession(ctx, id, expected);
}

/** What the charge's 3-D Secure says, as our sales record it. */
export function authenticationOf(pi: PaymentIntent): Authentication | undefined {
  const tds = latestCharge(pi)?.payment_method_details?.card?.three_d_secure;
  const method = tds?.authentication_flow === 'frictionless' ? 'frictionless' : 'challenge';
  if (tds?.result === 'authenticated') return { status: 'authenticated', method };
  if (tds?.result === 'attempt_acknowledged') return { status: 'authenticated', method: 'frictionless' };
  if (tds?.result === 'failed') return { status: 'failed', method };
  return undefined;
}

/** A session's state as a payment: paid (or held) is approved; open is undecided; expired was not paid. */
export function sessionOutcome(session: CheckoutSession, expected: Expected): SettledResult | { outcome: 'pending' } {
  if (session.status === 'expired') return { outcome: 'declined', card: null };
  const pi = typeof session.payment_intent === 'object' ? session.payment_intent : null;
  if (session.status !== 'complete' || !pi) return { outcome: 'pending' };
  checkPayment(pi, { amount: expected.amount ?? pi.amount, currency: expected.currency ?? pi.currency, reference: expected.reference, capture: expected.capture ?? pi.capture_method !== 'manual' });
  const held = pi.status === 'requires_capture';
  if (session.payment_status !== 'paid' && !held) return { outcome: 'pending' };
  if (pi.status !== 'succeeded' && !held) return { outcome: 'pending' };
  const authentication = authenticationOf(pi);
  return { outcome: 'approved', reference: pi.id, card: cardSummary(latestCharge(pi)?.payment_method_details?.card), ...(authentication ? { authentication } : {}) };
}

/** What this process knows a session of `reference` must say. */
function expectedFor(ctx: StripeContext, reference: string): Expected {
  const sent = ctx.sent.get(reference);
  return sent?.kind === 'checkout' ? expectedOfSession(sent.params) : { reference };
}

/**
 * The customer's return: the session read again by the id recorded at `pay`, never from the
 * query. Back from `cancel_url`, an open session is ended first (the customer gave up on it;
 * ending it is harmless whoever asked, and what counts is what Stripe then says).
 */
export async function checkoutReturn(ctx: StripeContext, input: ReturnInput): Promise<SettledResult | { outcome: 'pending' } | NotActed> {
  if (!input.processorId?.startsWith('cs_')) return { outcome: 'not_acted', reason: 'no Checkout Session was started for this call' };
  const expected = expectedFor(ctx, input.reference);
  let session = await retrieveSession(ctx, input.processorId, expected);
  if (session.status === 'open' && input.query[CANCELLED_PARAM] === 'cancelled') session = await expireSession(ctx, session.id, expected);
  return sessionOutcome(session, expected);
}

/**
 * A lookup of a pay call by its session (the reconciliation after the call's wait, or before
 * another attempt on its transaction): the attempt is over on our side, so a session still
 * open is ended first, and a success that arrives anyway takes the late-payment path.
 */
export async function lookupSession(ctx: StripeContext, reference: string, id: string): Promise<LookupResult> {
  const expected = expectedFor(ctx, reference);
  let session = await retrieveSession(ctx, id, expected);
  if (session.status === 'open') session = await expireSession(ctx, id, expected);
  const outcome = sessionOutcome(session, expected);
  if (outcome.outcome === 'pending') throw new Error(`Checkout Session ${id} is ${session.status} and not paid yet`);
  if (outcome.outcome === 'approved') return { status: 'succeeded', reference: outcome.reference, card: outcome.card, ...(outcome.authentication ? { authentication: outcome.authentication } : {}) };
  return { status: 'failed', reason: 'declined', card: null };
}

/**
 * The session a create made, read again under its key (a pay whose answer was lost); null
 * when it never was, or when Stripe kept a 5xx for the key: that names nothing, though the
 * session may have been made all the same, so the caller lists the sessions.
 */
export async function replayedSession(ctx: StripeContext, reference: string, params: Stripe.Checkout.SessionCreateParams): Promise<string | null> {
  try {
    const session = read(sessionSchema, await ctx.stripe.checkout.sessions.create(params, { idempotencyKey: reference }), 'the Checkout Session');
    checkSession(session, expectedOfSession(params));
    return session.id;
  } catch (error) {
    if (isServerError(error) || notActed(error)) return null;
    throw error;
  }
}

/** A session as a list holds it, checked only for its shape (the caller tells ours by `client_reference_id`). */
export const readSession = (raw: unknown): CheckoutSession => read(sessionSchema, raw, 'a Checkout Session');
