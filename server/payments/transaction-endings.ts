import type { Deps } from '../deps';
import { inTransaction } from '../store/db';
import { expireDueRows } from '../store/payments';
import { markCancelled } from '../store/transaction-aggregate';

// A transaction that ends unpaid: the customer cancels it, or its expiry passes. Either
// only while nobody is paying it (domain/payment-claim.ts has the rule), with its event in
// the same database transaction.

type EndingDeps = Pick<Deps, 'database' | 'outbox'>;

/** The customer cancels: false when the transaction is no longer pending, or a payment of it is under way. */
export function cancelTransaction(deps: EndingDeps, transactionId: string, now: Date): Promise<boolean> {
  return inTransaction(deps.database.db, async (trx) => {
    if (!(await markCancelled(trx, transactionId, now))) return false;
    await deps.outbox.emit(trx, 'transaction.cancelled', transactionId, now);
    return true;
  });
}

/** The expiry job's round: up to `limit` pending transactions past their expiry end, each with its event. */
export function expireDue(deps: EndingDeps, now: Date, limit = 100): Promise<number> {
  return inTransaction(deps.database.db, async (trx) => {
    const expired = await expireDueRows(trx, now, limit);
    for (const id of expired) await deps.outbox.emit(trx, 'transaction.expired', id, now);
    return expired.length;
  });
}
