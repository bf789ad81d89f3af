import type { ExpressionBuilder } from 'kysely';
import { uuidv7 } from '../domain/ids';
import { creditDestinations } from './destinations';
import { type Db, inTransaction, Rollback, rollbackOn } from './db';
import { skipLocked } from './locking';
import type { Outbox } from './events';
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
 * Claims the right to run one payment attempt: pending, not expired, nobody else
 * mid-attempt, and fewer than FAILED_ATTEMPTS_LIMIT declines in the last hour, all in one
 * conditional update, with the gateway call it reserves. The claim lasts as long as the
 * call's (`claimed_until`). Two simultaneous clicks get one `true`.
 */
export async function claimPaymentAttempt(db: Db, call: GatewayCall, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const transactionId = call.subject_id;
  return rollbackOn<boolean, boolean>(db, async (trx) => {
    const result = await trx
      .updateTable('transactions')
      .set({ processing_until: call.claimed_until })
      .where('id', '=', transactionId)
      .where('status', '=', 'N')
      .where('expired_at', '>', at)
      .where((eb) => eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', at)]))
      .where((eb) => eb(recentFailures(trx, transactionId, now).select(eb.fn.countAll().as('n')), '<', FAILED_ATTEMPTS_LIMIT))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    // A claim taken over from a process that died mid-attempt: its call is the
    // reconciliation's, which settles it on its own (a stale call cannot record: see completePayment).
    await insertCall(trx, call);
    return true;
  });
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

async function recordAttempt(db: Db, a: AttemptRecord, now: Date) {
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
  a: AttemptRecord & { callId: string; state: 'failed' | 'abandoned' },
  now: Date,
): Promise<boolean> {
  return rollbackOn<boolean, boolean>(db, async (trx) => {
    const checkAt = a.state === 'abandoned' ? now : null;
    if (!(await settleCall(trx, a.callId, ['pending'], a.state, now, { checkAt }))) return false;
    await recordAttempt(trx, a, now);
    await trx
      .updateTable('transactions')
      .set({ processing_until: null })
      .where('id', '=', a.transactionId)
      .where('status', '=', 'N')
      .execute();
    return true;
  });
}

export interface ApprovedPayment extends AttemptRecord {
  callId: string;
  environmentId: string;
  currency: string;
  amount: number;
  /** true: funds held (authorize); false: captured now. */
  hold: boolean;
  gatewayReference: string;
  card: { expMonth: number | null; expYear: number | null } | null;
}

export type CompleteOutcome =
  | { kind: 'recorded'; sale: SaleRow }
  /** Another process (the live request or a reconciler) settled the call first: nothing written. */
  | { kind: 'settled_elsewhere' }
  /** The claim ran out and the transaction moved on (expired, paid): the call is marked abandoned, to be reversed. */
  | { kind: 'not_pending' };

/**
 * An approved attempt, all or nothing: its call succeeded, transaction D, the sale (held
 * or captured), its first operation, the stored payment method when holding, the attempt
 * record, and the events that report them.
 */
export async function completePayment(db: Db, p: ApprovedPayment, now: Date, outbox: Outbox): Promise<CompleteOutcome> {
  const at = now.toISOString();
  const outcome = await rollbackOn<CompleteOutcome, CompleteOutcome>(db, async (trx) => {
    if (!(await settleCall(trx, p.callId, ['pending'], 'succeeded', now))) return { kind: 'settled_elsewhere' };
    const updated = await trx
      .updateTable('transactions')
      .set({ status: 'D', processing_until: null, updated_at: at })
      .where('id', '=', p.transactionId)
      .where('status', '=', 'N')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) throw new Rollback<CompleteOutcome>({ kind: 'not_pending' });
    const { notify_url } = await trx
      .selectFrom('transactions')
      .select('notify_url')
      .where('id', '=', p.transactionId)
      .executeTakeFirstOrThrow();

    let authorizationId: string | null = null;
    if (p.hold) {
      authorizationId = uuidv7(now.getTime());
      await trx
        .insertInto('authorizations')
        .values({
          id: authorizationId,
          environment_id: p.environmentId,
          transaction_id: p.transactionId,
          gateway_id: p.gatewayId,
          status: 'active',
          card_brand: p.cardBrand,
          card_last4: p.cardLast4,
          card_exp_month: p.card?.expMonth ?? null,
          card_exp_year: p.card?.expYear ?? null,
          gateway_reference: p.gatewayReference,
          notify_url,
          created_at: at,
          updated_at: at,
        })
        .execute();
    }
    const sale: SaleRow = {
      id: uuidv7(now.getTime()),
      environment_id: p.environmentId,
      transaction_id: p.transactionId,
      authorization_id: authorizationId,
      gateway_id: p.gatewayId,
      currency: p.currency,
      amount: p.amount,
      held: p.hold ? p.amount : 0,
      captured: p.hold ? 0 : p.amount,
      refunded: 0,
      voided: 0,
      description: null,
      card_brand: p.cardBrand,
      card_last4: p.cardLast4,
      notify_url,
      failure: null,
      source_transaction_id: null,
      created_at: at,
      updated_at: at,
    };
    await trx.insertInto('sales').values(sale).execute();
    await creditDestinations(trx, outbox, sale, now);
    await trx.updateTable('gateway_calls').set({ result_id: sale.id }).where('id', '=', p.callId).execute();
    await trx
      .insertInto('sale_operations')
      .values({
        id: uuidv7(now.getTime()),
        sale_id: sale.id,
        kind: p.hold ? 'authorize' : 'capture',
        amount: p.amount,
        gateway_reference: p.gatewayReference,
        created_at: at,
      })
      .execute();
    await recordAttempt(trx, p, now);
    await outbox.emit(trx, 'transaction.paid', p.transactionId, now);
    if (authorizationId) await outbox.emit(trx, 'authorization.created', authorizationId, now);
    await outbox.emit(trx, 'sale.created', sale.id, now);
    return { kind: 'recorded', sale };
  });
  if (outcome.kind === 'not_pending') {
    await rollbackOn(db, (trx) => settleCall(trx, p.callId, ['pending'], 'abandoned', now, { checkAt: now }));
  }
  return outcome;
}

/** The customer cancels: only a pending, unexpired transaction no one is paying. */
export async function cancelTransaction(db: Db, transactionId: string, now: Date, outbox: Outbox): Promise<boolean> {
  const at = now.toISOString();
  return inTransaction(db, async (trx) => {
    const result = await trx
      .updateTable('transactions')
      .set({ status: 'C', updated_at: at })
      .where('id', '=', transactionId)
      .where('status', '=', 'N')
      .where('expired_at', '>', at)
      .where((eb) => eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', at)]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await outbox.emit(trx, 'transaction.cancelled', transactionId, now);
    return true;
  });
}

/**
 * Stores E for up to `limit` pending transactions past their expiry, each with its event.
 * The same guard as a payment claim, so an attempt in progress is never expired under it;
 * processes sweeping at once skip each other's rows (PostgreSQL) or take turns (SQLite).
 */
export async function expireDue(db: Db, now: Date, outbox: Outbox, limit = 100): Promise<number> {
  const at = now.toISOString();
  const due = (eb: ExpressionBuilder<Tables, 'transactions'>) =>
    eb.and([
      eb('status', '=', 'N'),
      eb('expired_at', '<=', at),
      eb.or([eb('processing_until', 'is', null), eb('processing_until', '<', at)]),
    ]);
  return inTransaction(db, async (trx) => {
    const rows = await skipLocked(trx, trx.selectFrom('transactions').select('id').where(due).limit(limit)).execute();
    let expired = 0;
    for (const { id } of rows) {
      const result = await trx
        .updateTable('transactions')
        .set({ status: 'E', updated_at: at })
        .where('id', '=', id)
        .where(due)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) continue;
      await outbox.emit(trx, 'transaction.expired', id, now);
      expired++;
    }
    return expired;
  });
}

export function findSaleOfTransaction(db: Db, transactionId: string) {
  return db.selectFrom('sales').selectAll().where('transaction_id', '=', transactionId).executeTakeFirst();
}
