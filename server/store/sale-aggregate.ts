import type { ExpressionBuilder } from 'kysely';
import {
  type ActionStep,
  actionLimit,
  addPending,
  chargeMadeAfterAll,
  moveDisputed,
  releaseRestOfHold,
  removePending,
  type SaleAction,
  type SaleAmounts,
  saleStatus,
  settleCharge,
  stepAction,
  undoRefund,
} from '../domain/sales';
import { compiledInsert, compiledOnce } from './compiled';
import { type Db, type Tx, writeTogether } from './db';
import { forUpdate } from './locking';
import type { SaleRow, Tables } from './schema';

// The sale aggregate: the one module that writes the `sales` table (a lint rule keeps it
// so, eslint.config.js). Its money changes one way: lock the row, let a rule of
// domain/sales.ts decide what the amounts become (or refuse), write them with the status
// saleStatus derives from them. The rule is then the only definition, and holds under any
// concurrency on both engines (FOR UPDATE on PostgreSQL; SQLite's one writer). The other
// writes here touch no amount: links to other rows, and the hold-expiry job's marks.

/**
 * Inserts new sales (store/new-sale.ts), each with the status its amounts give; resolves with
 * the rows as stored. Every caller's next statement follows at once (the sale's operation, its
 * call's link): the rows go to the database with it (writeTogether's `withNext`).
 */
export async function insertSales(trx: Tx, sales: readonly SaleRow[]): Promise<SaleRow[]> {
  const rows = sales.map((s) => ({ ...s, status: saleStatus(s) }));
  if (rows.length) await writeTogether(trx, [compiledInsert(trx, 'sales', rows)], { withNext: true });
  return rows;
}

type Rule = (s: SaleAmounts) => SaleAmounts | null;

/** The columns a rule may change. */
const AMOUNTS = ['held', 'captured', 'refunded', 'voided', 'capturing', 'refunding', 'voiding', 'failure', 'pending', 'disputed'] as const;

/**
 * Locks the sale, applies `rule` to its amounts and writes what it gives with its status;
 * resolves with the row as written (the caller's next step needs no read of it).
 * undefined when the rule refuses, or there is no such sale: nothing written.
 */
export async function changeSale(trx: Tx, saleId: string, rule: Rule, now: Date): Promise<SaleRow | undefined> {
  const row = await forUpdate(trx, trx.selectFrom('sales').selectAll().where('id', '=', saleId)).executeTakeFirst();
  return row && writeChange(trx, row, rule, now);
}

/**
 * Writes what `rule` makes of the locked `row`; undefined when it refuses. The row is locked
 * and its new state computed here, so the update's answer says nothing new: it goes to the
 * database with the transaction's next statement, its commit at the latest (writeTogether's
 * `withNext`); a gateway is called outside any database transaction (payments/README.md).
 */
async function writeChange(trx: Tx, row: SaleRow, rule: Rule, now: Date): Promise<SaleRow | undefined> {
  const next = rule(row);
  if (!next) return undefined;
  const set: Partial<SaleRow> = { status: saleStatus(next), updated_at: now.toISOString() };
  for (const column of AMOUNTS) if (next[column] !== row[column]) Object.assign(set, { [column]: next[column] });
  await writeTogether(trx, [trx.updateTable('sales').set(set).where('id', '=', row.id).compile()], { withNext: true });
  return { ...row, ...set };
}

/** One step of a capture, refund or void (domain/sales.ts stepAction); undefined when its rule refuses it. */
export const moveAmounts = (trx: Tx, saleId: string, action: SaleAction, step: ActionStep, x: number, now: Date) =>
  changeSale(trx, saleId, (s) => stepAction(action, step, s, x), now);

/**
 * One step of an action on a sale its caller locked (store/sales.ts lockSale, which reads it
 * whole with the lock); undefined when its rule refuses it.
 */
export const moveLockedAmounts = (trx: Tx, row: SaleRow, action: SaleAction, step: ActionStep, x: number, now: Date) =>
  writeChange(trx, row, (s) => stepAction(action, step, s, x), now);

/**
 * What a capture left of the hold, released with it on a sale its caller locked and wrote
 * (a gateway that captures once: domain/sales.ts releaseRestOfHold); undefined when nothing is left.
 */
export const releaseLockedRest = (trx: Tx, row: SaleRow, now: Date) => writeChange(trx, row, releaseRestOfHold, now);

/** A reserved action: its amount, the sale as written, and what its call and a refund's take-back need of the payment. */
export interface Reserved {
  amount: number;
  sale: SaleRow;
  /** The payment's own gateway reference: the sale's first operation made it. */
  paymentReference: string | null;
  /** The `destination` of the sale's transaction (or of the transaction its source payment paid), as stored. */
  split: string | null;
}

/** The sale locked, with its payment's reference and split: reserveAmounts's read. */
const lockedWithPayment = compiledOnce((db, saleId: string) =>
  forUpdate(
    db,
    db
      .selectFrom('sales')
      .selectAll('sales')
      .select((eb) => [
        eb
          .selectFrom('sale_operations')
          .select('sale_operations.gateway_reference')
          .whereRef('sale_operations.sale_id', '=', 'sales.id')
          .orderBy('sale_operations.id')
          .limit(1)
          .as('payment_reference'),
        eb
          .selectFrom('transactions')
          .select('transactions.destination')
          .where('transactions.id', '=', eb.fn.coalesce('sales.transaction_id', 'sales.source_transaction_id'))
          .as('split'),
      ])
      .where('sales.id', '=', saleId),
  ),
);

/**
 * Reserves an action of `amount`, or of all it can move (`all`: decided under the row's
 * lock, not from a read before it, which an action reserved meanwhile would make too much).
 * The lock's read brings the payment's reference and split with the row: one statement
 * where it took three (issue 49). Null when there is nothing to move or the rule refuses.
 */
export async function reserveAmounts(trx: Tx, saleId: string, action: SaleAction, amount: number | 'all', now: Date): Promise<Reserved | null> {
  const [locked] = await lockedWithPayment(trx, saleId);
  if (!locked) return null;
  const { payment_reference, split, ...row } = locked;
  let x = 0;
  const sale = await writeChange(
    trx,
    row,
    (s) => {
      x = amount === 'all' ? actionLimit(action, s) : amount;
      return x > 0 ? stepAction(action, 'reserve', s, x) : null;
    },
    now,
  );
  return sale ? { amount: x, sale, paymentReference: payment_reference ?? null, split: split ?? null } : null;
}

/** A refund the gateway confirmed and then failed (the bank returned it): refundable again; false when `refunded` does not hold it. */
export const unrefund = (trx: Tx, saleId: string, x: number, now: Date) => changeSale(trx, saleId, (s) => undoRefund(s, x), now);

/** What disputes hold of the sale moved by `x` (negative: given back); false when the rule refuses it. */
export const moveSaleDisputed = (trx: Tx, saleId: string, x: number, now: Date) => changeSale(trx, saleId, (s) => moveDisputed(s, x), now);

/** Calls of unknown outcome on these sales (an action's, a source payment's): one more pending each. */
export async function addPendingActions(trx: Tx, saleIds: readonly string[], now: Date): Promise<void> {
  for (const id of saleIds) await changeSale(trx, id, addPending, now);
}

/** An action's call that had been marked unknown is settled: its sale has one pending call less. */
export const removePendingAction = (trx: Tx, saleId: string, now: Date) => changeSale(trx, saleId, removePending, now);

/** The pending sale of a charge gets what the gateway did: its amounts, or its failure (with its confirm link when the cardholder can lift it). */
export async function settlePendingSale(trx: Tx, saleId: string, result: Pick<SaleRow, 'captured' | 'failure' | 'confirm_token' | 'confirm_expires_at'>, now: Date): Promise<boolean> {
  const { captured, failure, confirm_token, confirm_expires_at } = result;
  if (!(await changeSale(trx, saleId, (s) => settleCharge(s, { captured, failure }), now))) return false;
  if (confirm_token) await trx.updateTable('sales').set({ confirm_token, confirm_expires_at }).where('id', '=', saleId).execute();
  return true;
}

/** A failed sale whose charge the gateway made after all (told after the settle window): captured, no failure. */
export const markLateCharge = (trx: Tx, saleId: string, captured: number, now: Date) => changeSale(trx, saleId, (s) => chargeMadeAfterAll(s, captured), now);

/**
 * The customer confirmed it and the processor took the money: captured, once. Of two
 * returns at once, one finds the sale still waiting for its customer; the other changes
 * nothing (false).
 */
export const markConfirmed = (trx: Tx, sale: Pick<SaleRow, 'id' | 'amount'>, now: Date) =>
  changeSale(trx, sale.id, (s) => (s.failure === 'authentication_required' ? chargeMadeAfterAll(s, sale.amount) : null), now);

/** The confirm link closed now, if still open (its charge is being paid another way). */
export async function closeConfirmLink(trx: Tx, saleId: string, now: Date): Promise<void> {
  await trx
    .updateTable('sales')
    .set({ confirm_expires_at: now.toISOString() })
    .where('id', '=', saleId)
    .where('failure', '=', 'authentication_required')
    .where('confirm_expires_at', '>', now.toISOString())
    .execute();
}

/** The sale's link to its dispute, once the bank opened one. */
export async function linkDispute(trx: Tx, saleId: string, disputeId: string, at: string): Promise<void> {
  await trx.updateTable('sales').set({ dispute_id: disputeId, updated_at: at }).where('id', '=', saleId).execute();
}

/** A subscription charge's sale joins the transaction made for its period. */
export async function linkTransaction(trx: Tx, saleId: string, transactionId: string): Promise<void> {
  await trx.updateTable('sales').set({ transaction_id: transactionId }).where('id', '=', saleId).execute();
}

/** Sales not claimed by a hold-expiry run, or whose claim lapsed. */
export const unclaimed = (at: string) => (eb: ExpressionBuilder<Tables, 'sales'>) => eb.or([eb('expiry_claimed_until', 'is', null), eb('expiry_claimed_until', '<=', at)]);

/** Claims a sale for the hold-expiry job until `until`, if no other run holds it at `at`. */
export async function claimHoldExpiry(trx: Tx, saleId: string, at: string, until: string): Promise<boolean> {
  const taken = await trx.updateTable('sales').set({ expiry_claimed_until: until }).where('id', '=', saleId).where(unclaimed(at)).executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
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
