import Stripe from 'stripe';
import type { LookupResult } from '../gateway';
import { cardSummary, checkPayment, latestCharge, type PaymentIntent, paymentIntentSchema, read, refundSchema } from './answers';
import { lookupSession, readSession, replayedSession } from './checkout';
import { lookupElement } from './element';
import type { StripeContext } from './context';
import { needsCustomer } from './off-session';
import { lookupSetup } from './setup';
import { declineOutcome, expectedOf, paymentOutcome } from './pay';
import { isServerError, notActed } from './refusals';
import type { Sent } from './sent';

// What Stripe did for one of our references, without trusting search. In order:
// 1. A payment sent less than 23 hours ago (Stripe keeps an Idempotency-Key's answer for
//    at least 24; past that, the same create would make a new payment) is sent again, the
//    same parameters under the same key: Stripe answers what it answered the first time. A
//    kept 5xx says nothing, so it leads to step 2, never to another send.
// 2. The PaymentIntents created since the call (a few minutes' margin for clocks) are
//    listed, newest first, and ours is the one whose `metadata[reference]` is ours. Lists
//    are up to date at once; search is not.
// 3. Search, last, when the list could not be read to its end: a search that finds
//    nothing is believed only an hour after the call (search's index lags, usually by
//    under a minute, longer during incidents).
// A capture, refund or void is read back from its PaymentIntent, which the reconciliation
// names (`payment`) when this process did not send it. Else, after a restart this process
// does not know what a reference was, nor when it was sent: the payments, refunds and
// Checkout Sessions (a payment's, or a card's setup session: a store call is never
// remembered) of the last `lookupWindowHours` are listed, and a capture is
// searched for by `metadata[capture_reference]` (the reconciliation asks again over its
// settle window before it believes a `not_found`).

const MINUTE = 60_000;
const REPLAY_WITHIN_MS = 23 * 60 * MINUTE;
const SEARCH_LAG_MS = 60 * MINUTE;
const CLOCK_MARGIN_MS = 5 * MINUTE;
/** At most this many objects are listed per lookup (20 pages). */
const LIST_LIMIT = 2000;

type Found<T> = { found: T | null; exhaustive: boolean };

function fromPayment(pi: PaymentIntent): LookupResult {
  const outcome = paymentOutcome(pi);
  if (outcome.outcome === 'approved') return { status: 'succeeded', reference: outcome.reference, card: outcome.card };
  if (outcome.outcome === 'challenge') throw new Error(`PaymentIntent ${pi.id} waits for the customer's 3-D Secure`);
  const error = pi.last_payment_error;
  // An off-session charge the issuer declined until the cardholder authenticates, its answer
  // lost: the same PaymentIntent the customer can still confirm, as chargeSaved would have said.
  if (error?.code === 'authentication_required' && pi.status === 'requires_payment_method') {
    const method = typeof error.payment_method === 'object' ? error.payment_method : null;
    return { status: 'failed', reason: 'declined', card: outcome.card ?? cardSummary(method?.card), confirm: pi.id };
  }
  return { status: 'failed', reason: outcome.outcome, card: outcome.card };
}

async function listed<T>(items: AsyncIterable<unknown>, read: (item: unknown) => T, matches: (item: T) => boolean): Promise<Found<T>> {
  let seen = 0;
  for await (const item of items) {
    const value = read(item);
    if (matches(value)) return { found: value, exhaustive: true };
    if (++seen >= LIST_LIMIT) return { found: null, exhaustive: false };
  }
  return { found: null, exhaustive: true };
}

const seconds = (ms: number) => Math.floor(ms / 1000);

const paymentsSince = (ctx: StripeContext, since: number, matches: (pi: PaymentIntent) => boolean) =>
  listed(ctx.stripe.paymentIntents.list({ created: { gte: seconds(since) }, limit: 100, expand: ['data.latest_charge'] }), (pi) => read(paymentIntentSchema, pi, 'a PaymentIntent'), matches);

async function searched(ctx: StripeContext, key: 'reference' | 'capture_reference', reference: string): Promise<PaymentIntent | null> {
  const query = `metadata['${key}']:'${reference.replaceAll("'", "\\'")}'`;
  const result = await ctx.stripe.paymentIntents.search({ query, limit: 1, expand: ['data.latest_charge'] });
  return result.data[0] ? read(paymentIntentSchema, result.data[0], 'a PaymentIntent') : null;
}

/** Step 1: the create sent again under its key; null when Stripe kept a 5xx for it. */
async function replayed(ctx: StripeContext, reference: string, sent: Extract<Sent, { kind: 'pay' }>): Promise<LookupResult | null> {
  const expected = expectedOf(sent.params);
  try {
    const pi = read(paymentIntentSchema, await ctx.stripe.paymentIntents.create(sent.params, { idempotencyKey: reference }), 'the PaymentIntent');
    checkPayment(pi, expected);
    // The kept answer is of that moment: a payment still deciding then is read as it is now.
    const now = pi.status === 'requires_action' || pi.status === 'processing' ? read(paymentIntentSchema, await ctx.stripe.paymentIntents.retrieve(pi.id, { expand: ['latest_charge'] }), 'the PaymentIntent') : pi;
    return fromPayment(now);
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError) {
      // Kept for the cardholder to confirm: as chargeSaved would have answered it.
      const customer = needsCustomer(error, expected);
      if (customer) return { status: 'failed', reason: 'declined', card: customer.card, confirm: customer.processorId };
      const { outcome, card } = declineOutcome(error, expected);
      return { status: 'failed', reason: outcome === 'insufficient_funds' ? outcome : 'declined', card };
    }
    if (isServerError(error)) return null;
    // Refused for its parameters or the state it met: the first send was refused alike. A
    // key, permission or rate refusal is about this lookup, not about the payment.
    const status = (error as Stripe.errors.StripeError).statusCode;
    if (notActed(error) && status !== 401 && status !== 403 && status !== 429) return { status: 'failed', reason: 'refused', card: null };
    throw error;
  }
}

async function lookupPayment(ctx: StripeContext, reference: string, sent: Extract<Sent, { kind: 'pay' }>): Promise<LookupResult> {
  const age = ctx.now().getTime() - sent.at;
  if (age < REPLAY_WITHIN_MS) {
    const answer = await replayed(ctx, reference, sent);
    if (answer) return answer;
  }
  const { found, exhaustive } = await paymentsSince(ctx, sent.at - CLOCK_MARGIN_MS, (pi) => pi.metadata.reference === reference);
  const pi = found ?? (exhaustive ? null : await searched(ctx, 'reference', reference));
  if (pi) {
    checkPayment(pi, expectedOf(sent.params));
    return fromPayment(pi);
  }
  if (!exhaustive && age < SEARCH_LAG_MS) throw new Error(`PaymentIntent of ${reference} not listed, and search cannot be believed yet`);
  return { status: 'not_found' };
}

async function lookupAction(ctx: StripeContext, reference: string, sent: Extract<Sent, { kind: 'capture' | 'refund' | 'void' }>): Promise<LookupResult> {
  if (sent.kind === 'refund') {
    const mine = await listed(ctx.stripe.refunds.list({ payment_intent: sent.payment, limit: 100 }), (r) => read(refundSchema, r, 'a refund'), (r) => r.metadata.reference === reference);
    if (!mine.found) return { status: 'not_found' };
    const made = mine.found.status !== 'failed' && mine.found.status !== 'canceled';
    return made ? { status: 'succeeded', reference: mine.found.id, card: null } : { status: 'failed', reason: 'refused', card: null };
  }
  const pi = read(paymentIntentSchema, await ctx.stripe.paymentIntents.retrieve(sent.payment), 'the PaymentIntent');
  const done = sent.kind === 'capture' ? pi.metadata.capture_reference === reference : pi.status === 'canceled';
  return done ? { status: 'succeeded', reference: pi.id, card: null } : { status: 'not_found' };
}

/**
 * A PaymentIntent of ours no one ever tried to confirm: every create of ours confirms at once
 * but the Payment Element's, which its page confirms. One found by a process that did not
 * send it (the create's answer lost, then a restart) was never given to a page, and is
 * ended as any of the Element's rather than left open at Stripe for its client_secret.
 */
const unconfirmedElement = (pi: PaymentIntent) => pi.status === 'requires_payment_method' && !pi.last_payment_error && !pi.latest_charge;

/** After a restart: the reference could be any kind of call, made at any time in the window. */
async function lookupForgotten(ctx: StripeContext, reference: string): Promise<LookupResult> {
  const since = ctx.now().getTime() - ctx.settings.lookupWindowHours * 60 * MINUTE;
  const payment = await paymentsSince(ctx, since, (pi) => pi.metadata.reference === reference || pi.metadata.capture_reference === reference);
  const pi = payment.found ?? (await searched(ctx, 'capture_reference', reference));
  if (pi?.metadata.capture_reference === reference) return { status: 'succeeded', reference: pi.id, card: cardSummary(latestCharge(pi)?.payment_method_details?.card) };
  if (pi && unconfirmedElement(pi)) return lookupElement(ctx, reference, pi.id);
  if (pi) return fromPayment(pi);
  const refunds = await listed(ctx.stripe.refunds.list({ created: { gte: seconds(since) }, limit: 100 }), (r) => read(refundSchema, r, 'a refund'), (r) => r.metadata.reference === reference);
  if (refunds.found) return lookupAction(ctx, reference, { kind: 'refund', payment: refunds.found.payment_intent ?? '', at: since });
  // A payment's Checkout Session not paid has no PaymentIntent yet: ended like any of ours, so that one whose answer was lost is not left open.
  // A card's setup session (a store call's, whose answer was lost: nothing remembers it) likewise, read as its resume would: a card saved there is the call's, one still open is expired.
  const sessions = await listed(ctx.stripe.checkout.sessions.list({ created: { gte: seconds(since) }, limit: 100 }), readSession, (cs) => cs.client_reference_id === reference && (cs.mode === 'payment' || cs.mode === 'setup'));
  if (sessions.found?.mode === 'setup') return lookupSetup(ctx, sessions.found.id);
  if (sessions.found) return lookupSession(ctx, reference, sessions.found.id);
  if (!payment.exhaustive || !refunds.exhaustive || !sessions.exhaustive) throw new Error(`${reference} not found in what could be listed`);
  return { status: 'not_found' };
}

/** The PaymentIntent a Payment Element's create made, read again under its key (its answer was lost); null when Stripe kept a 5xx. */
async function replayedElement(ctx: StripeContext, reference: string, sent: Extract<Sent, { kind: 'element' }>): Promise<LookupResult | null> {
  try {
    const pi = read(paymentIntentSchema, await ctx.stripe.paymentIntents.create(sent.params, { idempotencyKey: reference }), 'the PaymentIntent');
    return lookupElement(ctx, reference, pi.id);
  } catch (error) {
    if (isServerError(error)) return null;
    throw error;
  }
}

/**
 * A Payment Element's PaymentIntent that the replay cannot name (Stripe kept a 5xx for its
 * key, or the key is past its 24 h): found by listing, and ended like any of the Element's
 * (lookupElement), so that a PaymentIntent made and never handed to the page is not left open.
 */
async function listedElement(ctx: StripeContext, reference: string, sent: Extract<Sent, { kind: 'element' }>): Promise<LookupResult> {
  const { found } = await paymentsSince(ctx, sent.at - CLOCK_MARGIN_MS, (pi) => pi.metadata.reference === reference);
  return found ? lookupElement(ctx, reference, found.id) : lookupForgotten(ctx, reference);
}

/**
 * `processorId`: a Checkout Session's id (`cs_…`) when the call started one, read by that
 * id; a pay call's PaymentIntent (`pi_…`, the Payment Element's) likewise. `action`: the
 * kind of call and, for a capture, refund or void, the PaymentIntent it acts on, so that
 * one this process did not send (it started after a crash) is read back from that
 * PaymentIntent: a void leaves no reference of ours anywhere at Stripe to search for.
 */
export async function lookup(ctx: StripeContext, reference: string, processorId?: string, action: { kind?: string; payment?: string } = {}): Promise<LookupResult> {
  if (processorId?.startsWith('cs_')) return lookupSession(ctx, reference, processorId);
  if (action.kind === 'pay' && processorId?.startsWith('pi_')) return lookupElement(ctx, reference, processorId);
  const sent = ctx.sent.get(reference);
  const { kind, payment } = action;
  if (!sent && payment && (kind === 'capture' || kind === 'refund' || kind === 'void')) return lookupAction(ctx, reference, { kind, payment, at: ctx.now().getTime() });
  if (!sent) return lookupForgotten(ctx, reference);
  if (sent.kind === 'element') {
    const answer = ctx.now().getTime() - sent.at < REPLAY_WITHIN_MS ? await replayedElement(ctx, reference, sent) : null;
    return answer ?? listedElement(ctx, reference, sent);
  }
  if (sent.kind === 'checkout') {
    // Its answer was lost: the create again under its key names the session (or makes it, to be ended at once).
    const session = ctx.now().getTime() - sent.at < REPLAY_WITHIN_MS ? await replayedSession(ctx, reference, sent.params) : null;
    return session ? lookupSession(ctx, reference, session) : lookupForgotten(ctx, reference);
  }
  return sent.kind === 'pay' ? lookupPayment(ctx, reference, sent) : lookupAction(ctx, reference, sent);
}
