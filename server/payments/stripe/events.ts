import { z } from 'zod';
import type { ProcessorEventRead, ProcessorEventSays } from '../processor-said';
import { StripeMismatch } from './answers';
import { elementSucceeded } from './element';
import { sessionById, sessionOutcome } from './checkout';
import { STRIPE_API_VERSION } from './client';
import type { StripeContext } from './context';
import { isDisputeEvent, readDispute } from './disputes';
import { REFUND_EVENTS, refundsOfEvent } from './refund-events';

// A webhook delivery from Stripe (docs/processors.md "Webhooks"): verified on the raw body
// with the SDK's `webhooks.constructEvent` under the processor's signing secret (which also
// refuses a timestamp older than five minutes, Stripe's replay window), then read with zod.
// An event of another API version is refused (the endpoint must be registered with the one
// the connector pins). Nothing in the event's body is believed beyond its type and the
// object's id: the object is read again from Stripe by id, and our reference comes from
// what Stripe holds. The Checkout events settle a pay call, the refund events say what
// became of refunds (refund-events.ts), the dispute events what a dispute is now
// (disputes.ts), `payment_intent.succeeded` a Payment Element's payment or a charge the
// customer confirmed on our page (even if they never came back to it); the others are
// acknowledged.

const eventSchema = z.object({
  id: z.string().startsWith('evt_'),
  object: z.literal('event'),
  type: z.string().max(100),
  api_version: z.string().nullable(),
  data: z.object({ object: z.object({ id: z.string().max(255), object: z.string().max(100) }) }),
});

/** The events that settle a pay call started by Checkout. */
const CHECKOUT_EVENTS = new Set(['checkout.session.completed', 'checkout.session.expired', 'checkout.session.async_payment_succeeded', 'checkout.session.async_payment_failed']);

function verify(ctx: StripeContext, body: Buffer, signature: string | undefined): z.infer<typeof eventSchema> | { reason: string } {
  if (!ctx.settings.webhookSecret) return { reason: 'no webhook secret is set for this processor' };
  if (!signature) return { reason: 'no Stripe-Signature header' };
  let raw: unknown;
  try {
    raw = ctx.stripe.webhooks.constructEvent(body, signature, ctx.settings.webhookSecret);
  } catch {
    return { reason: 'the signature does not verify' };
  }
  const parsed = eventSchema.safeParse(raw);
  if (!parsed.success) return { reason: 'the event is not as Stripe documents it' };
  if (parsed.data.api_version !== STRIPE_API_VERSION) return { reason: `the event is of API version ${parsed.data.api_version}, not ${STRIPE_API_VERSION}` };
  return parsed.data;
}

export async function readEvent(ctx: StripeContext, input: { body: Buffer; signature: string | undefined }): Promise<ProcessorEventRead> {
  const event = verify(ctx, input.body, input.signature);
  if ('reason' in event) return { verified: false, reason: event.reason };
  const object = event.data.object;
  const base = { verified: true as const, event: event.id, type: event.type, object: object.id };
  try {
    return { ...base, says: await whatItSays(ctx, event.type, object) };
  } catch (error) {
    // What Stripe holds does not match what we asked: never recorded, for a person (a retry would read the same).
    if (error instanceof StripeMismatch) return { ...base, says: { kind: 'mismatch', why: error.message, reference: null } };
    throw error;
  }
}

async function whatItSays(ctx: StripeContext, type: string, object: { id: string; object: string }): Promise<ProcessorEventSays> {
  if (CHECKOUT_EVENTS.has(type) && object.object === 'checkout.session' && object.id.startsWith('cs_')) return checkoutSays(ctx, object.id);
  if (REFUND_EVENTS.has(type)) return { kind: 'refunds', refunds: await refundsOfEvent(ctx, type, object.id) };
  if (isDisputeEvent(type) && object.id.startsWith('dp_')) return { kind: 'dispute', dispute: await readDispute(ctx, object.id) };
  if (PAID_EVENTS.has(type) && object.object === 'payment_intent' && object.id.startsWith('pi_')) return succeededSays(ctx, object.id);
  return { kind: 'nothing' };
}

/** A PaymentIntent paid (or, for a hold, authorized): a Payment Element's, or a charge that waited for its customer. */
const PAID_EVENTS = new Set(['payment_intent.succeeded', 'payment_intent.amount_capturable_updated']);

/** A PaymentIntent paid, read again by id: ours when it carries our reference (the service finds its call waiting, or a charge the customer confirmed). */
async function succeededSays(ctx: StripeContext, id: string): Promise<ProcessorEventSays> {
  const paid = await elementSucceeded(ctx, id);
  return paid ? { kind: 'succeeded', reference: paid.reference, payment: id, result: paid.result } : { kind: 'nothing' };
}

/** A Checkout Session read again by id: our reference is the one Stripe holds, checked against its metadata. */
async function checkoutSays(ctx: StripeContext, id: string): Promise<ProcessorEventSays> {
  const found = await sessionById(ctx, id);
  if (!found) return { kind: 'nothing' };
  const reference = found.expected.reference;
  let outcome;
  try {
    outcome = sessionOutcome(found.session, found.expected);
  } catch (error) {
    if (error instanceof StripeMismatch) return { kind: 'mismatch', why: error.message, reference };
    throw error;
  }
  if (outcome.outcome === 'pending') return { kind: 'nothing', reference };
  const result =
    outcome.outcome === 'approved'
      ? { status: 'succeeded' as const, reference: outcome.reference, card: outcome.card, ...(outcome.authentication ? { authentication: outcome.authentication } : {}) }
      : { status: 'failed' as const, reason: 'declined' as const, card: null };
  return { kind: 'payment', note: { reference, result } };
}
