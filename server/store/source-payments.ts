import { type Db, inTransaction } from './db';
import { claimEach } from './locking';
import type { SaleRow } from './schema';
import { insertTransaction, takeOverSourcePayment } from './transaction-aggregate';
import { type StoredTransaction, type Transaction, transactionFromRow } from './transactions';

// The rows of a transaction paid from its `source` (payments/sources.ts): reserved before
// the first card is charged, its card charges linked to it as they are recorded, then paid
// or failed, each once (a conditional update on `source_state`, in transaction-aggregate.ts).

/** Stores the transaction as a reserved source payment, claimed by its process until `until`. */
export async function reserveSourcePayment(db: Db, tx: StoredTransaction, until: Date): Promise<void> {
  await insertTransaction(db, { ...tx, row: { ...tx.row, status: 'N', source_state: 'reserved', processing_until: until.toISOString() } });
}

/** The card charges recorded for the transaction's sources (declined attempts included). */
export function sourceCharges(db: Db, transactionId: string): Promise<SaleRow[]> {
  return db.selectFrom('sales').selectAll().where('source_transaction_id', '=', transactionId).orderBy('id').execute();
}

/** Whether a charge for the transaction is still at its gateway, unrecorded (reconciliation records it). */
export async function hasPendingSourceCharge(db: Db, transactionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('gateway_calls')
    .select('id')
    .where('kind', '=', 'charge')
    .where('state', '=', 'pending')
    .where('request', 'like', `%"source_transaction_id":"${transactionId}"%`)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Reserved source payments whose process died (their claim ran out), claimed for
 * `leaseMs`: FOR UPDATE SKIP LOCKED on PostgreSQL and a conditional update, so of several
 * processes one finishes each.
 */
export async function claimStaleSourcePayments(db: Db, now: Date, leaseMs: number, limit: number): Promise<Transaction[]> {
  const at = now.toISOString();
  const until = new Date(now.getTime() + leaseMs).toISOString();
  return inTransaction(db, (trx) =>
    claimEach(
      trx,
      trx.selectFrom('transactions').selectAll().where('source_state', '=', 'reserved').where('processing_until', '<', at).orderBy('created_at').limit(limit),
      async (row) => ((await takeOverSourcePayment(trx, row.id, row.processing_until!, until)) ? transactionFromRow({ ...row, processing_until: until }) : undefined),
    ),
  );
}
