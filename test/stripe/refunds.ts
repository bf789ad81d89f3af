import { type Books, expand } from './books';
import { checkAmountUnits, invalid, invalidParams, noSuch } from './errors';
import { refund, type StripeObject } from './objects';
import type { Params } from './params';

// Refunds of a captured card payment, by PaymentIntent or charge. Stripe refuses more than
// is left: `charge_already_refunded` once nothing is, `amount_too_large` above the rest.
// A refund may stay `pending` and succeed or fail days later (`refundsGoPending`,
// `settleRefund`, `failRefund`): a failed one's amount is refundable again. Each change
// queues the events Stripe sends: `refund.created` and `charge.refunded` for a new refund,
// `refund.updated` when its status moves, and `refund.failed` when it fails.

const LIVE = new Set(['pending', 'succeeded', 'requires_action']);

const refundedOf = (books: Books, chargeId: string) =>
  [...books.refunds.values()].filter((r) => r.charge === chargeId && LIVE.has(r.status)).reduce((sum, r) => sum + (r.amount as number), 0);

function chargeToRefund(books: Books, params: Params): StripeObject {
  if (params.charge) {
    const found = books.charges.get(params.charge as string);
    if (!found) throw noSuch('charge', params.charge as string, 'charge');
    return found;
  }
  const pi = books.paymentIntents.get(params.payment_intent as string);
  if (!pi) throw noSuch('payment_intent', params.payment_intent as string, 'payment_intent');
  const found = pi.latest_charge ? books.charges.get(pi.latest_charge) : undefined;
  if (!found || found.status !== 'succeeded') throw invalid(null, `This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, 'payment_intent');
  return found;
}

export function createRefund(books: Books, params: Params): StripeObject {
  if (!params.charge === !params.payment_intent) {
    throw invalidParams('parameter_missing', 'One of the following params should be provided for this request: payment_intent or charge.', 'payment_intent');
  }
  const ch = chargeToRefund(books, params);
  // A hold is released by cancelling its PaymentIntent; the double does not refund one.
  if (!ch.captured) throw invalid(null, `Charge ${ch.id} has not been captured: cancel its PaymentIntent to release it.`, 'charge');
  const left = ch.amount_captured - refundedOf(books, ch.id);
  if (left <= 0) throw invalid('charge_already_refunded', `Charge ${ch.id} has already been refunded.`, 'charge');
  const amount = (params.amount as number | undefined) ?? left;
  if (amount > left) throw invalid('amount_too_large', `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`, 'amount');
  checkAmountUnits(amount, ch.currency, 'amount');
  const re = refund({
    amount,
    charge: ch,
    created: books.now(),
    status: books.refundsGoPending ? 'pending' : 'succeeded',
    reason: params.reason ?? null,
    metadata: (params.metadata as Record<string, string>) ?? {},
  });
  books.refunds.set(re.id, re);
  Object.assign(ch, { amount_refunded: ch.amount_refunded + amount, refunded: amount === left });
  books.outbox.push({ type: 'refund.created', object: structuredClone(re) }, { type: 'charge.refunded', object: structuredClone(ch) });
  return expand(books, re, params.expand as string[]);
}

export function retrieveRefund(books: Books, id: string, params: Params): StripeObject {
  const re = books.refunds.get(id);
  if (!re) throw noSuch('refund', id);
  return expand(books, re, params.expand as string[]);
}

function pendingRefund(books: Books, id: string): StripeObject {
  const re = books.refunds.get(id);
  if (!re || re.status !== 'pending') throw new Error(`refund ${id} is not pending`);
  return re;
}

/** A pending refund fails (a test hook): the bank returned it, and its amount is refundable again. */
export function failRefund(books: Books, id: string, reason = 'expired_or_canceled_card'): StripeObject {
  const re = pendingRefund(books, id);
  const ch = books.charges.get(re.charge)!;
  const previous = { status: re.status, failure_reason: null };
  Object.assign(re, { status: 'failed', failure_reason: reason, failure_balance_transaction: `txn_${re.id.slice(3)}` });
  Object.assign(ch, { amount_refunded: ch.amount_refunded - re.amount, refunded: false });
  books.outbox.push({ type: 'refund.updated', object: structuredClone(re), previous }, { type: 'refund.failed', object: structuredClone(re) });
  return re;
}

/** A pending refund goes through (a test hook): the bank took it. */
export function settleRefund(books: Books, id: string): StripeObject {
  const re = pendingRefund(books, id);
  Object.assign(re, { status: 'succeeded' });
  books.outbox.push({ type: 'refund.updated', object: structuredClone(re), previous: { status: 'pending' } });
  return re;
}
