import type { SeenRefund } from '../processor-said';
import { read, type Refund, refundSchema, same } from './answers';
import type { StripeContext } from './context';

// Refunds as Stripe's events tell of them (docs/processors.md "Webhooks"): `refund.updated`
// and `refund.failed` name a refund, `charge.refunded` a charge. Nothing in the event is
// believed: the refund is read again by its id, and a charge's refunds are listed from
// Stripe. What each says is handed to the service (payments/processor-refunds.ts), which
// compares it with its books: our reference is the refund's `metadata[reference]`, which
// the connector writes on every refund it makes (actions.ts).

/** The refund events the connector reads; their object is a refund (`re_…`) or, for `charge.refunded`, a charge. */
export const REFUND_EVENTS = new Set(['charge.refunded', 'refund.updated', 'refund.failed']);

/** A refund as our books compare it: made (succeeded, or pending: accepted) or failed (failed, canceled). */
export function seenRefund(r: Refund): SeenRefund {
  const failed = r.status === 'failed' || r.status === 'canceled';
  return {
    id: r.id,
    payment: r.payment_intent ?? null,
    charge: r.charge ?? null,
    amount: r.amount,
    currency: r.currency,
    state: failed ? 'failed' : 'made',
    reference: r.metadata.reference ?? null,
    why: failed ? `${r.status}${r.failure_reason ? ` (${r.failure_reason})` : ''}` : null,
    created: new Date(r.created * 1000),
  };
}

/** The refunds an event is about, as Stripe holds them now. */
export async function refundsOfEvent(ctx: StripeContext, type: string, id: string): Promise<SeenRefund[]> {
  if (type === 'charge.refunded') {
    if (!id.startsWith('ch_')) return [];
    const all: SeenRefund[] = [];
    for await (const r of ctx.stripe.refunds.list({ charge: id, limit: 100 })) {
      const refund = read(refundSchema, r, 'a refund');
      same('refund.charge', id, refund.charge);
      all.push(seenRefund(refund));
    }
    return all;
  }
  if (!id.startsWith('re_')) return [];
  const refund = read(refundSchema, await ctx.stripe.refunds.retrieve(id), 'the refund');
  same('id', id, refund.id);
  return [seenRefund(refund)];
}
