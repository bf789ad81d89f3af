import { z } from 'zod';
import type { ProcessorRecent, SeenCharge } from '../processor-said';
import { read, refundSchema } from './answers';
import type { StripeContext } from './context';
import { seenRefund } from './refund-events';
import { ourUnits } from './units';

// The daily sweep's reading of Stripe (docs/processors.md "The daily sweep"): the account's
// charges and refunds created in a window, by Stripe's `created` filter on its lists
// (which are up to date at once; search is not, and is not used). Each page is read with
// zod; at most `SWEEP_LIMIT` of each kind, past which the listing is not complete.

const SWEEP_LIMIT = 5000;

const chargeSchema = z.object({
  id: z.string().startsWith('ch_'),
  object: z.literal('charge'),
  amount: z.number().int(),
  amount_captured: z.number().int(),
  captured: z.boolean(),
  status: z.enum(['succeeded', 'pending', 'failed']),
  currency: z.string(),
  payment_intent: z.union([z.string(), z.object({ id: z.string(), metadata: z.record(z.string(), z.string()) })]).nullish(),
  metadata: z.record(z.string(), z.string()),
  created: z.number().int(),
});

function seenCharge(c: z.infer<typeof chargeSchema>): SeenCharge {
  const pi = typeof c.payment_intent === 'object' ? c.payment_intent : null;
  return {
    id: c.id,
    payment: pi?.id ?? (typeof c.payment_intent === 'string' ? c.payment_intent : null),
    status: c.status,
    amount: ourUnits(c.amount, c.currency),
    captured: c.captured ? ourUnits(c.amount_captured, c.currency) : 0,
    currency: c.currency,
    reference: pi?.metadata.reference ?? c.metadata.reference ?? null,
    created: new Date(c.created * 1000),
  };
}

/** Up to SWEEP_LIMIT items of a list, each read; `complete` when the list ended first. */
async function upTo<T>(items: AsyncIterable<unknown>, each: (item: unknown) => T): Promise<{ all: T[]; complete: boolean }> {
  const all: T[] = [];
  for await (const item of items) {
    if (all.length >= SWEEP_LIMIT) return { all, complete: false };
    all.push(each(item));
  }
  return { all, complete: true };
}

export async function recentAtStripe(ctx: StripeContext, window: { since: Date; until: Date }): Promise<ProcessorRecent> {
  const created = { gte: Math.floor(window.since.getTime() / 1000), lte: Math.floor(window.until.getTime() / 1000) };
  const charges = await upTo(ctx.stripe.charges.list({ created, limit: 100, expand: ['data.payment_intent'] }), (c) => seenCharge(read(chargeSchema, c, 'a charge')));
  const refunds = await upTo(ctx.stripe.refunds.list({ created, limit: 100 }), (r) => seenRefund(read(refundSchema, r, 'a refund')));
  return { charges: charges.all, refunds: refunds.all, complete: charges.complete && refunds.complete };
}
