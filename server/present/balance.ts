import { findCurrency } from '../domain/currencies';
import { unitsToNumber } from '../domain/money';
import type { BalanceTransactionRow } from '../store/schema';

// The merchant's balance and its transactions as the API shows them.

const moneyOf = (currency: string) => (units: number | bigint) => unitsToNumber(units, findCurrency(currency)?.exponent ?? 2);

/** What made a balance transaction: a dispute's debit or reversal, a sale's money, or a payout to the merchant. */
export function sourceOf(row: BalanceTransactionRow) {
  if (row.dispute_id) return { object: 'dispute' as const, id: row.dispute_id };
  if (row.sale_id) return { object: 'sale' as const, id: row.sale_id };
  return { object: 'merchant_payout' as const, id: row.payout_id ?? '' };
}

export function presentBalanceTransaction(row: BalanceTransactionRow, now: Date) {
  const money = moneyOf(row.currency);
  return {
    id: row.id,
    type: row.type,
    source: sourceOf(row),
    currency: row.currency,
    amount: money(row.amount),
    fee: money(row.fee),
    net: money(row.net),
    status: row.available_on <= now.toISOString() ? ('available' as const) : ('pending' as const),
    available_on: row.available_on,
    created: row.created_at,
  };
}

export function presentBalance(rows: { currency: string; available: bigint; pending: bigint }[]) {
  return {
    available: rows.map((r) => ({ currency: r.currency, amount: moneyOf(r.currency)(r.available) })),
    pending: rows.map((r) => ({ currency: r.currency, amount: moneyOf(r.currency)(r.pending) })),
  };
}
