import { uuidv7 } from '../domain/ids';
import { type Db, inTransaction, type Tx } from './db';
import { type RowGateway, settleCall } from './gateway-calls';
import type { ChallengeState, PaymentChallengeRow } from './schema';
import { releasePaymentClaim } from './transaction-aggregate';

// The challenges of payments (3-D Secure-like): a payment whose gateway asked the customer
// to authenticate first. Nothing moved while one is open; the transaction stays payable.

/** How long a customer has to answer a challenge before it must pay again. */
const CHALLENGE_MS = 15 * 60_000;

/**
 * The gateway answered the pay call with a challenge: the call ends (nothing moved, so
 * nothing to reconcile), the challenge opens, and the transaction is free again, all at
 * once. Not a declined attempt: it does not count towards the card-testing limit. null
 * when another process settled the call first.
 */
export async function openChallenge(
  db: Db,
  c: { callId: string; environmentId: string; transactionId: string; gateway: RowGateway; gatewayChallenge: string },
  now: Date,
): Promise<PaymentChallengeRow | null> {
  return inTransaction(db, async (trx) => {
    if (!(await settleCall(trx, c.callId, ['pending'], 'failed', now))) return null;
    const at = now.toISOString();
    const row: PaymentChallengeRow = {
      id: uuidv7(now.getTime()),
      environment_id: c.environmentId,
      transaction_id: c.transactionId,
      gateway_id: c.gateway.id,
      gateway_account: c.gateway.account ?? null,
      gateway_challenge: c.gatewayChallenge,
      state: 'open',
      expires_at: new Date(now.getTime() + CHALLENGE_MS).toISOString(),
      created_at: at,
      updated_at: at,
    };
    await trx.insertInto('payment_challenges').values(row).execute();
    await releasePaymentClaim(trx, c.transactionId);
    return row;
  });
}

export async function findChallenge(db: Db, transactionId: string, id: string): Promise<PaymentChallengeRow | undefined> {
  return db.selectFrom('payment_challenges').selectAll().where('id', '=', id).where('transaction_id', '=', transactionId).executeTakeFirst();
}

/**
 * Takes an open, unexpired challenge for its answer, inside the claim of the payment
 * attempt that sends it (store/payments.ts): of two answers, one is sent. false otherwise.
 */
export async function takeChallenge(trx: Tx, id: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const taken = await trx
    .updateTable('payment_challenges')
    .set({ state: 'answered', updated_at: at })
    .where('id', '=', id)
    .where('state', '=', 'open')
    .where('expires_at', '>', at)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** What came of a challenge: completed or failed once its answer was sent, abandoned while open. */
export async function closeChallenge(db: Db, id: string, state: Exclude<ChallengeState, 'open' | 'answered'>, now: Date): Promise<boolean> {
  const from: ChallengeState = state === 'abandoned' ? 'open' : 'answered';
  const closed = await db
    .updateTable('payment_challenges')
    .set({ state, updated_at: now.toISOString() })
    .where('id', '=', id)
    .where('state', '=', from)
    .executeTakeFirst();
  return Number(closed.numUpdatedRows) === 1;
}

/**
 * The challenge a pay call opened, if any: opened in the statement that settled the call,
 * on one clock reading (openChallenge), so it is the transaction's challenge of the call's
 * gateway created at the call's `updated_at`.
 */
export async function challengeOfCall(
  db: Db,
  call: { subject_id: string; gateway_id: string; updated_at: string },
): Promise<PaymentChallengeRow | undefined> {
  return db
    .selectFrom('payment_challenges')
    .selectAll()
    .where('transaction_id', '=', call.subject_id)
    .where('gateway_id', '=', call.gateway_id)
    .where('created_at', '=', call.updated_at)
    .executeTakeFirst();
}
