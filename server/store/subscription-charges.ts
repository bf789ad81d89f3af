import { type Db, type Tx } from './db';
import { type GatewayCall, settleCall } from './gateway-calls';
import { insertSales, linkTransaction } from './sale-aggregate';
import { insertOperation } from './sale-operations';
import { insertPeriodTransaction } from './transaction-aggregate';
import type { AuthorizationRow, SaleOperationRow, SaleRow, SubscriptionChargeRow, SubscriptionRow, TransactionLineRow, TransactionRow } from './schema';

// The rows of subscription periods' charges: a period's charge row and the records of a
// charged period. The one module that writes `subscription_charges` (a lint rule keeps it
// so, eslint.config.js); the subscription's own row, its scheduler's claim included, is
// written by subscriptions.ts. Every change is a conditional write (the charge's state), so
// two processes never charge a period twice; what to write is decided in
// payments/subscription-period.ts.

/** The charge row of one period, if an attempt at it was made. */
export function periodCharge(db: Db, subscriptionId: string, period: number): Promise<SubscriptionChargeRow | undefined> {
  return db.selectFrom('subscription_charges').selectAll().where('subscription_id', '=', subscriptionId).where('period', '=', period).executeTakeFirst();
}

export async function insertCharge(trx: Tx, charge: SubscriptionChargeRow): Promise<void> {
  await trx.insertInto('subscription_charges').values(charge).execute();
}

/** The failed charge row taken for another attempt; false when another process took it first. */
export async function retryCharge(trx: Tx, failed: SubscriptionChargeRow, changes: Partial<SubscriptionChargeRow>): Promise<boolean> {
  const retried = await trx
    .updateTable('subscription_charges')
    .set(changes)
    .where('id', '=', failed.id)
    .where('status', '=', 'failed')
    .where('attempts', '=', failed.attempts)
    .executeTakeFirst();
  return Number(retried.numUpdatedRows) === 1;
}

/** A period's attempt reserved for one gateway call: its charge row, and the call. */
export interface Reservation {
  charge: SubscriptionChargeRow;
  subscription: SubscriptionRow;
  /** The gateway call reserved with it; null when there is no usable payment method to call. */
  call: GatewayCall | null;
  authorization: AuthorizationRow | null;
}

/** The reservation a pending gateway call belongs to, for reconciliation to record. */
export async function reservationOfCall(db: Db, call: GatewayCall): Promise<Reservation | undefined> {
  const charge = await db.selectFrom('subscription_charges').selectAll().where('id', '=', call.subject_id).executeTakeFirst();
  if (!charge) return undefined;
  const subscription = await db.selectFrom('subscriptions').selectAll().where('id', '=', charge.subscription_id).executeTakeFirstOrThrow();
  return { charge, subscription, call, authorization: null };
}

/** Marks the reservation's attempt done, once: false when another process recorded it first. */
export async function settleAttempt(
  trx: Tx,
  r: Reservation,
  to: 'succeeded' | 'failed' | 'abandoned',
  changes: Partial<SubscriptionChargeRow>,
  now: Date,
  resultId?: string,
  processorId?: string,
): Promise<boolean> {
  const extra = { resultId: resultId ?? null, checkAt: to === 'abandoned' ? now : null, processorId };
  if (r.call && !(await settleCall(trx, r.call.id, ['pending'], to, now, extra))) return false;
  const result = await trx
    .updateTable('subscription_charges')
    .set(changes)
    .where('id', '=', r.charge.id)
    .where('status', '=', 'pending')
    .where('attempts', '=', r.charge.attempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A charged period's records: its completed transaction with its one line, its sale and the sale's charge operation. */
export async function insertChargeRecords(
  trx: Tx,
  records: { transaction: TransactionRow; line: TransactionLineRow; sale: SaleRow; operation: SaleOperationRow },
): Promise<void> {
  await insertPeriodTransaction(trx, records);
  await insertSales(trx, [records.sale]);
  await insertOperation(trx, records.operation);
}

/**
 * The period whose attempt the customer confirmed (payments/confirm-payment.ts) is
 * charged, once: only while that attempt is still the period's failed one.
 */
export async function chargeConfirmedPeriod(trx: Tx, charge: Pick<SubscriptionChargeRow, 'id' | 'sale_id'>, transactionId: string, at: string): Promise<boolean> {
  const charged = await trx
    .updateTable('subscription_charges')
    .set({ status: 'charged', failure: null, transaction_id: transactionId, updated_at: at })
    .where('id', '=', charge.id)
    .where('sale_id', '=', charge.sale_id)
    .where('status', '=', 'failed')
    .executeTakeFirst();
  if (Number(charged.numUpdatedRows) !== 1) return false;
  await linkTransaction(trx, charge.sale_id!, transactionId);
  return true;
}

/** A period's charge row by its id. */
export function chargeById(db: Db, id: string): Promise<SubscriptionChargeRow | undefined> {
  return db.selectFrom('subscription_charges').selectAll().where('id', '=', id).executeTakeFirst();
}
