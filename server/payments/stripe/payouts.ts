import { z } from 'zod';
import { PROCESSOR_PAYOUT_STATUSES, type ProcessorPayout } from '../../domain/processor-settlement';
import { read } from './answers';
import type { StripeContext } from './context';
import { ourUnits } from './units';

// Stripe's own payouts of the merchant's account to the merchant's bank (docs/processors.md
// "The processor's payouts"): listed by `created` (GET /v1/payouts, newest first), each read
// with zod, for the daily sweep. Read-only: the service never makes or cancels one.

/** More than a daily schedule makes in the window the sweep reads; past it, the oldest are left out. */
const PAYOUT_LIMIT = 500;

const payoutSchema = z.object({
  id: z.string().startsWith('po_'),
  object: z.literal('payout'),
  amount: z.number().int(),
  currency: z.string().regex(/^[a-z]{3}$/),
  status: z.enum(PROCESSOR_PAYOUT_STATUSES),
  /** Unix seconds. */
  arrival_date: z.number().int(),
  created: z.number().int(),
  failure_message: z.string().nullish(),
});

export async function payoutsAtStripe(ctx: StripeContext, input: { since: Date }): Promise<ProcessorPayout[]> {
  const payouts: ProcessorPayout[] = [];
  for await (const item of ctx.stripe.payouts.list({ created: { gte: Math.floor(input.since.getTime() / 1000) }, limit: 100 })) {
    if (payouts.length >= PAYOUT_LIMIT) break;
    const p = read(payoutSchema, item, 'a payout');
    payouts.push({
      id: p.id,
      amount: ourUnits(p.amount, p.currency),
      currency: p.currency.toUpperCase(),
      status: p.status,
      arrivalDate: new Date(p.arrival_date * 1000),
      failureMessage: p.failure_message ?? null,
      created: new Date(p.created * 1000),
    });
  }
  return payouts;
}
