import { findCurrency } from '../domain/currencies';
import type { Share } from '../domain/ledger';
import { toUnits } from '../domain/money';
import type { Db, Tx } from './db';
import { forUpdate } from './locking';

// A transaction's `destination` as stored, and what its refunds so far add up to. What
// the wallets are credited and debited is the use cases' (payments/destinations.ts).

export interface Destination {
  wallet_id: string;
  /** Major units, as the transaction was created with them. */
  amount: number;
  concept?: string;
}

/** Decodes a transaction's `destination` column (JSON text, or null for none). */
export const destinationsOf = (text: string | null): Destination[] | null => (text ? (JSON.parse(text) as Destination[]) : null);

/** A transaction's split: its destinations, in minor units. */
export async function splitOf(trx: Db, transactionId: string, currency: string) {
  const { destination } = await trx
    .selectFrom('transactions')
    .select('destination')
    .where('id', '=', transactionId)
    .executeTakeFirstOrThrow();
  return splitOfList(destinationsOf(destination) ?? [], currency);
}

/** The split of destinations already read. */
export function splitOfList(list: Destination[], currency: string) {
  const exponent = findCurrency(currency)?.exponent ?? 2;
  return {
    shares: list.map((d): Share => ({ wallet: d.wallet_id, amount: toUnits(d.amount, exponent) })),
    concepts: list.map((d) => d.concept ?? null),
  };
}

/**
 * A transaction paid from its `source`: its total, and what its sales have refunded or are
 * refunding. Its row is locked, so two refunds of two of its charges count each other.
 */
export async function sourcePaymentRefunded(trx: Tx, transactionId: string): Promise<{ total: number; refunded: number }> {
  const paid = await forUpdate(trx, trx.selectFrom('transactions').select('total_price').where('id', '=', transactionId)).executeTakeFirstOrThrow();
  const { refunded } = await trx
    .selectFrom('sales')
    .select((eb) => eb.fn.sum<number | string>(eb('refunded', '+', eb.ref('refunding'))).as('refunded'))
    .where('source_transaction_id', '=', transactionId)
    .executeTakeFirstOrThrow();
  return { total: Number(paid.total_price), refunded: Number(refunded) };
}
