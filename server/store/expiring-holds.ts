import { type Db, inTransaction } from './db';
import { claimEach } from './locking';
import { claimHoldExpiry, unclaimed } from './sale-aggregate';
import type { SaleRow } from './schema';

// The rows of the hold-expiry job (payments/hold-expiry.ts): sales holding money, claimed
// one process at a time to be voided when their hold expires or put off until then (the
// claim's write, the postponement and the mark the void leaves are sale-aggregate.ts's).

/**
 * Claims up to `limit` sales still holding money, never expired and not put off past `now`,
 * for `leaseMs`: candidates FOR UPDATE SKIP LOCKED on PostgreSQL, each claim a conditional
 * UPDATE, so of several processes one takes a sale.
 */
export async function claimExpiredHolds(
  db: Db,
  c: { now: Date; leaseMs: number; limit: number },
): Promise<SaleRow[]> {
  const at = c.now.toISOString();
  const until = new Date(c.now.getTime() + c.leaseMs).toISOString();
  return inTransaction(db, async (trx) => {
    const due = trx
      .selectFrom('sales')
      .selectAll()
      .where('held', '>', 0)
      .where('failure', 'is', null)
      .where('hold_expired_at', 'is', null)
      .where(unclaimed(at))
      .orderBy('created_at')
      .limit(c.limit);
    return claimEach(trx, due, async (row) => ((await claimHoldExpiry(trx, row.id, at, until)) ? { ...row, expiry_claimed_until: until } : undefined));
  });
}
