import type { ExpressionBuilder } from 'kysely';
import { uuidv7 } from '../domain/ids';
import { takeChallenge } from './challenges';
import { type Db, Rollback, rollbackOn, type Tx } from './db';
import { claimEach } from './locking';
import { insertSales } from './sale-aggregate';
import { type GatewayCall, insertCall, settleCall } from './gateway-calls';
import type { SaleRow, Tables } from './schema';

// The money-moving writes of the checkout. Each is one database transaction, and each
// guards its state change with a conditional UPDATE, so it is correct on both engines
// and across processes without explicit row locks. The gateway is called between them,
// never inside one (server/payments/).

/**
 * Card testing: a public checkout page is a way to try stolen card numbers one after the
 * other. A transaction takes at most this many declined attempts in any hour; then the
 * next attempt waits until the oldest of them is an hour old.
 */
export const FAILED_ATTEMPTS_LIMIT = 10;
const FAILED_ATTEMPTS_WINDOW_MS = 60 * 60_000;
/** Refused payments (a gateway that failed is recorded as declined too); a customer rejecting a redirect provider's page is not counted. */
const FAILED = ['declined', 'insufficient_funds'];

/** The transaction's declined attempts of the last hour. */
const recentFailures = (db: Db, transactionId: string, now: Date) =>
  db
    .selectFrom('payment_attempts')
    .where('transaction_id', '=', transactionId)
    .where('outcome', 'in', FAILED)
    .where('created_at', '>', new Date(now.getTime() - FAILED_ATTEMPTS_WINDOW_MS).toISOString());

/**
 * No payment of the transaction is in doubt: a pay call still pending (being asked, or of
 * unknown outcome until proven) blocks another attempt, a cancel and the expiry, so a
 * transaction is never paid twice nor given up while the first payment may have been made.
 */
const noPaymentInDoubt = (eb: ExpressionBuilder<Tables, 'transactions'>) =>
  eb.not(
    eb.exists(
      eb
        .selectFrom('gateway_calls')
        .select('gateway_calls.id')
        .whereRef('gateway_calls.subject_id', '=', 'transactions.id')
        .where('gateway_calls.state', 'in', ['pending', 'attention'])
        .where('gateway_calls.kind', '=', 'pay'),
    ),
  );

/**
 * Pending and free: nobody mid-attempt (`processing_until` past), no payment in doubt, and
 * not paid from its sources (payments/sources.ts finishes those, never the page). What a
 * payment claim, a cancel and the expiry each require, besides their side of `expired_at`.
 */
const pendingAndFree = (at: string) => (eb: ExpressionBuilder<Tables, 'transactions'>) =>
  eb.and([
    eb('status', '=', 'N'),
    eb('source_state', 'is', null),
    eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', at)]),
    noPaymentInDoubt(eb),
  ]);

/**
 * Claims the right to run one payment attempt: pending, not expired, nobody else
 * mid-attempt, and fewer than FAILED_ATTEMPTS_LIMIT declines in the last hour, all in one
 * conditional update, with the gateway call it reserves. The claim lasts as long as the
 * call's (`claimed_until`). Two simultaneous clicks get one `true`. With `challengeId`, the
 * attempt answers that open challenge, taken in the same transaction.
 */
export async function claimPaymentAttempt(db: Db, call: GatewayCall, now: Date, challengeId?: string): Promise<boolean> {
  const at = now.toISOString();
  const transactionId = call.subject_id;
  return rollbackOn<boolean, boolean>(db, async (trx) => {
    const result = await trx
      .updateTable('transactions')
      .set({ processing_until: call.claimed_until })
      .where('id', '=', transactionId)
      .where(pendingAndFree(at))
      .where('expired_at', '>', at)
      .where((eb) => eb(recentFailures(trx, transactionId, now).select(eb.fn.countAll().as('n')), '<', FAILED_ATTEMPTS_LIMIT))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    if (challengeId && !(await takeChallenge(trx, challengeId, now))) throw new Rollback(false);
    // A claim taken over from a process that died mid-attempt: its call is the
    // reconciliation's, which settles it on its own (a stale call cannot record: see completePayment).
    await insertCall(trx, call);
    return true;
  });
}

/** A payment of the transaction is in doubt (being asked, of unknown outcome, or for a person to check). */
export async function paymentInDoubt(db: Db, transactionId: string): Promise<boolean> {
  const row = await db
    .selectFrom('gateway_calls')
    .select('id')
    .where('subject_id', '=', transactionId)
    .where('state', 'in', ['pending', 'attention'])
    .where('kind', '=', 'pay')
    .where('unknown_since', 'is not', null)
    .executeTakeFirst();
  return row !== undefined;
}

/** Milliseconds until the transaction takes another attempt after too many declines; 0 if it does now. */
export async function failedAttemptsWait(db: Db, transactionId: string, now: Date): Promise<number> {
  const recent = await recentFailures(db, transactionId, now)
    .select('created_at')
    .orderBy('created_at', 'desc')
    .limit(FAILED_ATTEMPTS_LIMIT)
    .execute();
  if (recent.length < FAILED_ATTEMPTS_LIMIT) return 0;
  // Free again when the oldest of the last LIMIT declines leaves the window.
  return Math.max(0, Date.parse(recent.at(-1)!.created_at) + FAILED_ATTEMPTS_WINDOW_MS - now.getTime());
}

export interface AttemptRecord {
  transactionId: string;
  gatewayId: string;
  outcome: 'approved' | 'declined' | 'insufficient_funds' | 'rejected';
  cardBrand: string | null;
  cardLast4: string | null;
}

export async function recordAttempt(db: Db, a: AttemptRecord, now: Date) {
  await db
    .insertInto('payment_attempts')
    .values({
      id: uuidv7(now.getTime()),
      transaction_id: a.transactionId,
      gateway_id: a.gatewayId,
      outcome: a.outcome,
      card_brand: a.cardBrand,
      card_last4: a.cardLast4,
      created_at: now.toISOString(),
    })
    .execute();
}

/**
 * A failed attempt: recorded, its call settled as `state` (failed: the gateway said no;
 * abandoned: it did not answer, see reconcile.ts), and the transaction free for the next
 * try, unless another process settled the call first (false, nothing written).
 */
export async function releaseFailedAttempt(
  db: Db,
  a: AttemptRecord & { callId: string; state: 'failed' | 'abandoned'; wasUnknown?: boolean },
  now: Date,
): Promise<boolean> {
  return rollbackOn<boolean, boolean>(db, async (trx) => {
    const checkAt = a.state === 'abandoned' ? now : null;
    if (!(await settleCall(trx, a.callId, ['pending'], a.state, now, { checkAt }))) return false;
    await recordAttempt(trx, a, now);
    if (a.wasUnknown) {
      // The payment page showed it being checked: its kept copy must go (checkout/page-cache.ts).
      await trx.updateTable('transactions').set({ updated_at: now.toISOString() }).where('id', '=', a.transactionId).execute();
    }
    await trx
      .updateTable('transactions')
      .set({ processing_until: null })
      .where('id', '=', a.transactionId)
      .where('status', '=', 'N')
      .execute();
    return true;
  });
}

/**
 * N → D: the transaction is paid. false when it had moved on meanwhile (paid by another
 * attempt, cancelled, expired): nothing written.
 */
export async function markTransactionPaid(trx: Tx, transactionId: string, now: Date): Promise<boolean> {
  const updated = await trx
    .updateTable('transactions')
    .set({ status: 'D', processing_until: null, updated_at: now.toISOString() })
    .where('id', '=', transactionId)
    .where('status', '=', 'N')
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

export async function notifyUrlOfTransaction(trx: Tx, transactionId: string): Promise<string | null> {
  const row = await trx.selectFrom('transactions').select('notify_url').where('id', '=', transactionId).executeTakeFirstOrThrow();
  return row.notify_url;
}

/** A payment's sale with its first operation (the hold or the capture), the result of its call. */
export async function insertPaymentSale(trx: Tx, sale: SaleRow, callId: string, first: { kind: 'authorize' | 'capture'; reference: string }): Promise<void> {
  await insertSales(trx, [sale]);
  // The call names what the processor made, as the sale does (its reference), in the same write.
  await trx.updateTable('gateway_calls').set({ result_id: sale.id, processor_id: first.reference }).where('id', '=', callId).execute();
  await trx
    .insertInto('sale_operations')
    .values({
      id: uuidv7(Date.parse(sale.created_at)),
      sale_id: sale.id,
      kind: first.kind,
      amount: sale.amount,
      gateway_reference: first.reference,
      created_at: sale.created_at,
      movement_id: null,
    })
    .execute();
}

/** The customer cancels: only a pending, unexpired transaction no one is paying (a conditional update). */
export async function markCancelled(trx: Tx, transactionId: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const result = await trx
    .updateTable('transactions')
    .set({ status: 'C', updated_at: at })
    .where('id', '=', transactionId)
    .where(pendingAndFree(at))
    .where('expired_at', '>', at)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Pending transactions past their expiry: the same guard as a payment claim, so an attempt
 * in progress is never expired under it.
 */
const dueForExpiry = (at: string) => (eb: ExpressionBuilder<Tables, 'transactions'>) => eb.and([pendingAndFree(at)(eb), eb('expired_at', '<=', at)]);

/**
 * Up to `limit` transactions due to expire, each stored E by markExpired; resolves with
 * those expired here. Processes sweeping at once skip each other's rows (PostgreSQL) or
 * take turns (SQLite).
 */
export function expireDueRows(trx: Tx, now: Date, limit: number): Promise<string[]> {
  const due = trx.selectFrom('transactions').select('id').where(dueForExpiry(now.toISOString())).limit(limit);
  return claimEach(trx, due, async ({ id }) => ((await markExpired(trx, id, now)) ? id : undefined));
}

/** Stores E on a transaction still due to expire (a conditional update). */
async function markExpired(trx: Tx, transactionId: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const result = await trx.updateTable('transactions').set({ status: 'E', updated_at: at }).where('id', '=', transactionId).where(dueForExpiry(at)).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function findSaleOfTransaction(db: Db, transactionId: string) {
  return db.selectFrom('sales').selectAll().where('transaction_id', '=', transactionId).executeTakeFirst();
}
