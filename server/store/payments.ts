import { uuidv7 } from '../domain/ids';
import { FAILED_ATTEMPTS_LIMIT, failedAttemptsWait as waitAfterFailures } from '../domain/payment-claim';
import { takeChallenge } from './challenges';
import { type Db, Rollback, rollbackOn, type Tx } from './db';
import { claimEach } from './locking';
import { insertAtCommit } from './compiled';
import { insertSales } from './sale-aggregate';
import { type GatewayCall, insertCallAtCommit, settleCall } from './gateway-calls';
import { addOperationAtCommit } from './sale-operations';
import type { SaleOperationRow, SaleRow } from './schema';
import { claimForPayment, expireIfDue, failuresSince, recentFailures, releasePaymentClaim, touchTransaction } from './transaction-aggregate';

// The money-moving writes of the checkout, each one database transaction. Who may act on a
// transaction is decided by store/transaction-aggregate.ts (its row locked, a rule of
// domain/payment-claim.ts asked, then written), so two simultaneous clicks get one claim on
// both engines and across processes. The gateway is called between these transactions,
// never inside one (server/payments/).

/**
 * Claims the right to run one payment attempt (domain/payment-claim.ts mayClaimPayment),
 * with the gateway call it reserves. The claim lasts as long as the call's
 * (`claimed_until`). Two simultaneous clicks get one `true`. With `challengeId`, the
 * attempt answers that open challenge, taken in the same transaction.
 */
export async function claimPaymentAttempt(db: Db, call: GatewayCall, now: Date, challengeId?: string): Promise<boolean> {
  // Its own transaction, committed before the gateway is called: the call's row with it.
  if (db.isTransaction) throw new Error('a payment attempt is claimed in a transaction of its own');
  return rollbackOn<boolean, boolean>(db, async (trx) => {
    if (!(await claimForPayment(trx, call.subject_id, call.claimed_until, now))) return false;
    if (challengeId && !(await takeChallenge(trx, challengeId, now))) throw new Rollback(false);
    // A claim taken over from a process that died mid-attempt: its call is the
    // reconciliation's, which settles it on its own (a stale call cannot record: see completePayment).
    await insertCallAtCommit(trx, call);
    return true;
  });
}

/** Milliseconds until the transaction takes another attempt after too many declines; 0 if it does now (domain/payment-claim.ts). */
export async function failedAttemptsWait(db: Db, transactionId: string, now: Date): Promise<number> {
  const latest = await recentFailures(db, transactionId, failuresSince(now)).select('created_at').orderBy('created_at', 'desc').limit(FAILED_ATTEMPTS_LIMIT).execute();
  return waitAfterFailures(latest.map((r) => r.created_at), now);
}

export interface AttemptRecord {
  transactionId: string;
  gatewayId: string;
  outcome: 'approved' | 'declined' | 'insufficient_funds' | 'rejected';
  cardBrand: string | null;
  cardLast4: string | null;
  /** The hosted page's language when the attempt was made there (payments/page-language.ts). */
  language: string | null;
}

/** Recorded as `trx` commits (compiled.ts insertAtCommit): read only by later attempts' claims. */
export async function recordAttempt(trx: Tx, a: AttemptRecord, now: Date) {
  await insertAtCommit(trx, 'payment_attempts', [
    {
      id: uuidv7(now.getTime()),
      transaction_id: a.transactionId,
      gateway_id: a.gatewayId,
      outcome: a.outcome,
      card_brand: a.cardBrand,
      card_last4: a.cardLast4,
      language: a.language,
      created_at: now.toISOString(),
    },
  ]);
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
      await touchTransaction(trx, a.transactionId, now);
    }
    await releasePaymentClaim(trx, a.transactionId);
    return true;
  });
}

export async function notifyUrlOfTransaction(trx: Tx, transactionId: string): Promise<string | null> {
  const row = await trx.selectFrom('transactions').select('notify_url').where('id', '=', transactionId).executeTakeFirstOrThrow();
  return row.notify_url;
}

/**
 * A payment's sale with its first operation (the hold or the capture); its call already
 * names it (settleCall). The operation is written as the transaction commits: a payment's
 * record reads none back.
 */
export async function insertPaymentSale(trx: Tx, sale: SaleRow, first: { kind: 'authorize' | 'capture'; reference: string }, now: Date): Promise<SaleOperationRow> {
  await insertSales(trx, [sale]);
  return addOperationAtCommit(trx, sale.id, first.kind, sale.amount, first.reference, now);
}

/**
 * Up to `limit` transactions due to expire (domain/payment-claim.ts dueForExpiry: the same
 * guard as a payment claim, so an attempt in progress is never expired under it), each
 * stored E; resolves with those expired here. Processes sweeping at once skip each other's
 * rows (PostgreSQL) or take turns (SQLite).
 */
export function expireDueRows(trx: Tx, now: Date, limit: number): Promise<string[]> {
  const at = now.toISOString();
  // Candidates only: the rule decides each, its row locked.
  const candidates = trx.selectFrom('transactions').select('id').where('status', '=', 'N').where('expired_at', '<=', at).limit(limit);
  return claimEach(trx, candidates, async ({ id }) => ((await expireIfDue(trx, id, now)) ? id : undefined));
}

export function findSaleOfTransaction(db: Db, transactionId: string) {
  return db.selectFrom('sales').selectAll().where('transaction_id', '=', transactionId).executeTakeFirst();
}
