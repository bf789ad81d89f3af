import { type Db, inTransaction, type Tx } from './db';
import { claimEach } from './locking';
import type { SaleRow } from './schema';
import { insertTransaction, type StoredTransaction, type Transaction, transactionFromRow } from './transactions';

// The rows of a transaction paid from its `source` (payments/sources.ts): reserved before
// the first card is charged, its card charges linked to it as they are recorded, then paid
// or failed, each once (a conditional update on `source_state`).

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

/** reserved → paid (the transaction `D`), once: false when it was settled already. */
export async function markSourcePaid(trx: Tx, transactionId: string, now: Date): Promise<boolean> {
  const done = await trx
    .updateTable('transactions')
    .set({ status: 'D', source_state: 'paid', processing_until: null, updated_at: now.toISOString() })
    .where('id', '=', transactionId)
    .where('source_state', '=', 'reserved')
    .executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

/** reserved → failed (the transaction `C`), with why, once every charge made for it has been refunded. */
export async function failSourcePayment(db: Db, transactionId: string, failure: string, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('transactions')
    .set({ status: 'C', source_state: 'failed', source_failure: failure, processing_until: null, updated_at: now.toISOString() })
    .where('id', '=', transactionId)
    .where('source_state', '=', 'reserved')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
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
      async (row) => {
        const taken = await trx
          .updateTable('transactions')
          .set({ processing_until: until })
          .where('id', '=', row.id)
          .where('source_state', '=', 'reserved')
          .where('processing_until', '=', row.processing_until!)
          .executeTakeFirst();
        return Number(taken.numUpdatedRows) === 1 ? transactionFromRow({ ...row, processing_until: until }) : undefined;
      },
    ),
  );
}
