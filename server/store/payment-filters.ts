import { type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { FAILED_ATTEMPT_OUTCOMES, type PaymentStatusWhere } from '../domain/payment-status';
import type { SearchTerms } from '../domain/transaction-search';
import { paysItsTransactionSql } from './paying-sale';
import type { Tables, TransactionStatus } from './schema';

// The payments list's own filters over transactions (the dashboard's; the API's list has
// its exact-match filters): a status in the merchant's words, an amount range in each
// currency's own units and a card's brand and last four. Each is one condition; they combine with AND.

export interface PaymentListFilters {
  /** Where a status in words is found (domain/payment-status.ts paymentStatusWhere). */
  payment_status?: PaymentStatusWhere;
  /** The total at least / at most these, per exponent (domain/transaction-search.ts amountBound). */
  amount_min?: SearchTerms['amounts'];
  amount_max?: SearchTerms['amounts'];
  /** Paid with a card ending in these four digits (its sale's or its stored card's). */
  card_last4?: string;
  /** Paid with a card of this brand (`visa`, as the card's row keeps it); with `card_last4`, the same card. */
  card_brand?: string;
}

/** A card as the list is asked for it: its brand, its last four, or both (of one card). */
export interface CardMatch {
  brand?: string;
  last4?: string;
}

type TxWhere = ExpressionBuilder<Tables, 'transactions'>;

/** The sale that paid the transaction: its first that moved money (domain/sales.ts paysItsTransaction). */
function payingSale(eb: TxWhere) {
  return eb
    .selectFrom('sales')
    .select('sales.id')
    .whereRef('sales.transaction_id', '=', 'transactions.id')
    .where(paysItsTransactionSql('sales'))
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('sales as earlier')
            .select('earlier.id')
            .whereRef('earlier.transaction_id', '=', 'transactions.id')
            .where(paysItsTransactionSql('earlier'))
            .whereRef('earlier.id', '<', 'sales.id'),
        ),
      ),
    );
}

/** A transaction status as readers see it: N past its expiry reads E. */
export function statusIs(eb: TxWhere, status: TransactionStatus, now: string): Expression<SqlBool> {
  if (status === 'E') return eb.or([eb('transactions.status', '=', 'E'), eb.and([eb('transactions.status', '=', 'N'), eb('transactions.expired_at', '<=', now)])]);
  if (status === 'N') return eb.and([eb('transactions.status', '=', 'N'), eb('transactions.expired_at', '>', now)]);
  return eb('transactions.status', '=', status);
}

/** Its last payment attempt was refused (by the bank, or the customer at a redirect). */
function lastAttemptFailed(eb: TxWhere) {
  return eb.exists(
    eb
      .selectFrom('payment_attempts')
      .select('payment_attempts.id')
      .whereRef('payment_attempts.transaction_id', '=', 'transactions.id')
      .where('payment_attempts.outcome', 'in', [...FAILED_ATTEMPT_OUTCOMES])
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('payment_attempts as later').select('later.id').whereRef('later.transaction_id', '=', 'transactions.id').whereRef('later.id', '>', 'payment_attempts.id'))),
      ),
  );
}

function statusWhere(eb: TxWhere, w: PaymentStatusWhere, now: string): Expression<SqlBool> {
  const either: Expression<SqlBool>[] = [];
  const sale = w.sale;
  if (sale) {
    const paying = payingSale(eb);
    either.push(eb.exists(sale.disputed ? paying.where('sales.dispute_id', 'is not', null) : paying.where('sales.dispute_id', 'is', null).where('sales.status', 'in', sale.statuses)));
  }
  const unpaid = w.unpaid;
  if (unpaid) {
    const all = [eb.not(eb.exists(payingSale(eb))), statusIs(eb, unpaid.status, now)];
    if (unpaid.lastAttemptFailed !== undefined) all.push(unpaid.lastAttemptFailed ? lastAttemptFailed(eb) : eb.not(lastAttemptFailed(eb)));
    either.push(eb.and(all));
  }
  return eb.or(either);
}

/** The total against a bound in each currency's own minor units. */
function amountWhere(eb: TxWhere, bound: SearchTerms['amounts'], op: '>=' | '<=') {
  return eb.or(
    bound.map(({ units, currencies }) =>
      eb.and([eb('transactions.total_price', op, units), 'in' in currencies ? eb('transactions.currency', 'in', currencies.in) : eb('transactions.currency', 'not in', currencies.notIn)]),
    ),
  );
}

/** Paid with such a card: a sale's or a stored card's, the brand and last four of the same row. */
export function cardWhere(eb: TxWhere, card: CardMatch) {
  const sales = eb.selectFrom('sales').select('sales.id').whereRef('sales.transaction_id', '=', 'transactions.id');
  const stored = eb.selectFrom('authorizations').select('authorizations.id').whereRef('authorizations.transaction_id', '=', 'transactions.id');
  return eb.or([
    eb.exists(sales.$if(!!card.brand, (q) => q.where('sales.card_brand', '=', card.brand!)).$if(!!card.last4, (q) => q.where('sales.card_last4', '=', card.last4!))),
    eb.exists(stored.$if(!!card.brand, (q) => q.where('authorizations.card_brand', '=', card.brand!)).$if(!!card.last4, (q) => q.where('authorizations.card_last4', '=', card.last4!))),
  ]);
}

/** Every filter given, together; `now` decides when an unpaid transaction reads as expired. */
export function paymentFiltersWhere(eb: TxWhere, f: PaymentListFilters, now: string): Expression<SqlBool> {
  const all: Expression<SqlBool>[] = [];
  if (f.payment_status) all.push(statusWhere(eb, f.payment_status, now));
  if (f.amount_min) all.push(amountWhere(eb, f.amount_min, '>='));
  if (f.amount_max) all.push(amountWhere(eb, f.amount_max, '<='));
  if (f.card_last4 || f.card_brand) all.push(cardWhere(eb, { brand: f.card_brand, last4: f.card_last4 }));
  return eb.and(all);
}
