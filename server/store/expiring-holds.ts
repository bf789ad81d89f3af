import type { ExpressionBuilder } from 'kysely';
import { type Db, inTransaction, type Tx } from './db';
import { claimEach } from './locking';
import type { SaleRow, Tables } from './schema';

// The rows of the hold-expiry job (payments/hold-expiry.ts): sales whose uncaptured hold
// is old enough to be voided, claimed one process at a time, and the mark the void leaves.

/**
 * Claims up to `limit` sales still holding money that were made at or before
 * `createdBefore` and never expired, for `leaseMs`: candidates FOR UPDATE SKIP LOCKED on
 * PostgreSQL, each claim a conditional UPDATE, so of several processes one takes a sale.
 */
export async function claimExpiredHolds(
  db: Db,
  c: { now: Date; createdBefore: Date; leaseMs: number; limit: number },
): Promise<SaleRow[]> {
  const at = c.now.toISOString();
  const until = new Date(c.now.getTime() + c.leaseMs).toISOString();
  const free = (eb: ExpressionBuilder<Tables, 'sales'>) => eb.or([eb('expiry_claimed_until', 'is', null), eb('expiry_claimed_until', '<=', at)]);
  return inTransaction(db, async (trx) => {
    const due = trx
      .selectFrom('sales')
      .selectAll()
      .where('held', '>', 0)
      .where('failure', 'is', null)
      .where('hold_expired_at', 'is', null)
      .where('created_at', '<=', c.createdBefore.toISOString())
      .where(free)
      .orderBy('created_at')
      .limit(c.limit);
    return claimEach(trx, due, async (row) => {
      const taken = await trx.updateTable('sales').set({ expiry_claimed_until: until }).where('id', '=', row.id).where(free).executeTakeFirst();
      return Number(taken.numUpdatedRows) === 1 ? { ...row, expiry_claimed_until: until } : undefined;
    });
  });
}

/** A claimed sale whose void did not happen now: left alone until `until`. */
export async function postponeExpiry(db: Db, saleId: string, until: Date): Promise<void> {
  await db.updateTable('sales').set({ expiry_claimed_until: until.toISOString() }).where('id', '=', saleId).execute();
}

/** The sale's hold expired: dated, in the transaction that records the void; false when it already was. */
export async function markHoldExpired(trx: Tx, saleId: string, now: Date): Promise<boolean> {
  const marked = await trx
    .updateTable('sales')
    .set({ hold_expired_at: now.toISOString(), expiry_claimed_until: null })
    .where('id', '=', saleId)
    .where('hold_expired_at', 'is', null)
    .executeTakeFirst();
  return Number(marked.numUpdatedRows) === 1;
}
