import { z } from 'zod';
import type { ProcessorFigures } from '../../domain/processor-settlement';
import { read, same } from './answers';
import type { StripeContext } from './context';
import { ourUnits } from './units';

// What Stripe settled for a captured payment (docs/processors.md "What settles where"): the
// balance transaction of the PaymentIntent's charge, read by expanding
// `latest_charge.balance_transaction` on the PaymentIntent (one request). Its amount, fee and
// net are Stripe's, in the currency it settled in (the account's settlement currency, which
// may differ from the payment's when Stripe converted it), turned from Stripe's units of it
// into ours (units.ts).

export const balanceTransactionSchema = z.object({
  id: z.string().startsWith('txn_'),
  object: z.literal('balance_transaction'),
  amount: z.number().int(),
  fee: z.number().int(),
  net: z.number().int(),
  currency: z.string().regex(/^[a-z]{3}$/),
  /** Unix seconds. */
  available_on: z.number().int().nullish(),
  source: z.string().nullish(),
});

export type BalanceTransaction = z.infer<typeof balanceTransactionSchema>;

/** Our figures of a balance transaction: the currency in capitals (ours is ISO 4217's spelling), the amounts in its ISO minor units. */
export function figuresOf(bt: BalanceTransaction): ProcessorFigures {
  const amount = ourUnits(bt.amount, bt.currency);
  const fee = ourUnits(bt.fee, bt.currency);
  return {
    record: bt.id,
    currency: bt.currency.toUpperCase(),
    amount,
    fee,
    // Stripe's net is its amount less its fee; computed so, a fraction of a króna rounded in the fee stays out of the net.
    net: amount - fee,
    availableOn: bt.available_on == null ? null : new Date(bt.available_on * 1000),
  };
}

const settledSchema = z.object({
  id: z.string().startsWith('pi_'),
  object: z.literal('payment_intent'),
  status: z.string(),
  latest_charge: z
    .union([z.string(), z.object({ id: z.string().startsWith('ch_'), object: z.literal('charge'), balance_transaction: z.union([z.string(), balanceTransactionSchema]).nullish() })])
    .nullish(),
});

/** The figures of `payment` (a PaymentIntent's id); null while Stripe has no balance transaction for it (nothing captured yet). */
export async function settlementAtStripe(ctx: StripeContext, payment: string): Promise<ProcessorFigures | null> {
  const pi = read(settledSchema, await ctx.stripe.paymentIntents.retrieve(payment, { expand: ['latest_charge.balance_transaction'] }), 'the PaymentIntent');
  same('id', payment, pi.id);
  const charge = typeof pi.latest_charge === 'object' ? pi.latest_charge : null;
  const bt = charge && typeof charge.balance_transaction === 'object' ? charge.balance_transaction : null;
  if (pi.status !== 'succeeded' || !charge || !bt) return null;
  // Stripe's record of this very charge, or it is not believed.
  if (bt.source != null) same('balance_transaction.source', charge.id, bt.source);
  return figuresOf(bt);
}
