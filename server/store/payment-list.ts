import type { Db } from './db';
import { paysItsTransactionSql } from './paying-sale';
import type { PaymentAttemptRow, SaleRow } from './schema';

// What the dashboard's payments list shows of each transaction besides its own row: the
// sale that paid it (amounts, card, dispute: its status in words, domain/payment-status.ts)
// and the outcome of its last payment attempt. Two queries for a page, by the transactions'
// indexed ids.

export type ListedSale = Pick<
  SaleRow,
  'id' | 'transaction_id' | 'amount' | 'held' | 'captured' | 'refunded' | 'voided' | 'capturing' | 'refunding' | 'voiding' | 'failure' | 'pending' | 'disputed' | 'dispute_id' | 'card_brand' | 'card_last4'
>;

export interface PaymentFactsOf {
  /** The sale that paid each transaction (its first that moved money), by transaction id. */
  sales: Map<string, ListedSale>;
  /** The outcome of each transaction's last payment attempt, by transaction id. */
  lastAttempts: Map<string, PaymentAttemptRow['outcome']>;
}

export async function paymentFactsOf(db: Db, environmentId: string, transactionIds: string[]): Promise<PaymentFactsOf> {
  if (!transactionIds.length) return { sales: new Map(), lastAttempts: new Map() };
  const [sales, attempts] = await Promise.all([
    db
      .selectFrom('sales')
      .select(['id', 'transaction_id', 'amount', 'held', 'captured', 'refunded', 'voided', 'capturing', 'refunding', 'voiding', 'failure', 'pending', 'disputed', 'dispute_id', 'card_brand', 'card_last4'])
      .where('environment_id', '=', environmentId)
      .where('transaction_id', 'in', transactionIds)
      .where(paysItsTransactionSql('sales'))
      .orderBy('id')
      .execute(),
    db.selectFrom('payment_attempts').select(['transaction_id', 'outcome']).where('transaction_id', 'in', transactionIds).orderBy('id').execute(),
  ]);
  const bySale = new Map<string, ListedSale>();
  for (const s of sales) if (s.transaction_id && !bySale.has(s.transaction_id)) bySale.set(s.transaction_id, s);
  // Oldest first: the last one written wins.
  return { sales: bySale, lastAttempts: new Map(attempts.map((a) => [a.transaction_id, a.outcome])) };
}
