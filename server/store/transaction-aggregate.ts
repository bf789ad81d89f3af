import type { QueryResult, Updateable } from 'kysely';
import { COUNTED_FAILURES, dueForExpiry, FAILED_ATTEMPTS_WINDOW_MS, mayCancel, mayClaimPayment, type TransactionFacts } from '../domain/payment-claim';
import { compiledInsert, compiledOnce } from './compiled';
import { type Db, type Tx, writeTogether } from './db';
import { forUpdate } from './locking';
import type { Tables, TransactionLineRow, TransactionRow } from './schema';
import { linesColumn, linesFrom, type StoredTransaction, type Transaction, transactionFromRow } from './transactions';
import type { Planned } from './together';

// The transaction aggregate: the one module that writes the `transactions` table (a lint
// rule keeps it so, eslint.config.js). Who may pay, cancel or expire a transaction is
// decided one way: lock the row, read its facts in the same statement, let a rule of
// domain/payment-claim.ts decide, write. Two simultaneous clicks then get one claim on both
// engines and across processes. The other writes here settle a state once (a conditional
// update): a payment recorded, a source payment settled, a claim given back or taken over.

/** Encodes a transaction into its row. */
function transactionToRow(t: Transaction): TransactionRow {
  return {
    ...t,
    gateway_selected: t.gateway_selected ? 1 : 0,
    authorize: t.authorize ? 1 : 0,
    source: t.source ? JSON.stringify(t.source) : null,
    destination: t.destination ? JSON.stringify(t.destination) : null,
  };
}

/**
 * The transaction and its lines in one database transaction: both or neither. `withNext`:
 * in a caller's transaction whose next statement follows at once, they go to the database
 * with it (writeTogether's; the create's, with the Idempotency-Key's record).
 */
export function insertTransaction(db: Db, tx: StoredTransaction, o: { withNext?: boolean } = {}): Promise<void> {
  const lines = [];
  // Chunked: SQLite caps bound parameters per statement (10 columns × 90 rows fits).
  for (let i = 0; i < tx.lines.length; i += 90) lines.push(compiledInsert(db, 'transaction_lines', tx.lines.slice(i, i + 90)));
  return writeTogether(db, [compiledInsert(db, 'transactions', [transactionToRow(tx.row)]), ...lines], o);
}

/** A charged period's completed transaction with its one line. */
export async function insertPeriodTransaction(trx: Tx, records: { transaction: TransactionRow; line: TransactionLineRow }): Promise<void> {
  await trx.insertInto('transactions').values(records.transaction).execute();
  await trx.insertInto('transaction_lines').values(records.line).execute();
}

/** The transaction's declined attempts within the card-testing window. */
export const recentFailures = (db: Db, transactionId: string, since: string) =>
  db.selectFrom('payment_attempts').where('transaction_id', '=', transactionId).where('outcome', 'in', COUNTED_FAILURES).where('created_at', '>', since);

/** Where the card-testing window of `now` starts. */
export const failuresSince = (now: Date) => new Date(now.getTime() - FAILED_ATTEMPTS_WINDOW_MS).toISOString();

/** lockedFacts's statement, compiled once. */
const lockedFactsQuery = compiledOnce((db, transactionId: string, since: string) =>
  forUpdate(
    db,
    db
      .selectFrom('transactions')
      .select(['status', 'source_state', 'processing_until', 'expired_at'])
      .select((eb) => [
        eb
          .exists(eb.selectFrom('gateway_calls').select('gateway_calls.id').where('gateway_calls.subject_id', '=', transactionId).where('gateway_calls.state', 'in', ['pending', 'attention']).where('gateway_calls.kind', '=', 'pay'))
          .as('payment_in_doubt'),
        recentFailures(db, transactionId, since)
          .select((f) => f.fn.countAll().as('n'))
          .as('recent_failures'),
      ])
      .where('id', '=', transactionId),
  ),
);

/** The transaction's row locked until the transaction ends, and what the rules read of it, in one statement. */
async function lockedFacts(trx: Tx, transactionId: string, now: Date): Promise<TransactionFacts | undefined> {
  const [row] = await lockedFactsQuery(trx, transactionId, failuresSince(now));
  return row && { ...row, source_state: row.source_state ?? null, processing_until: row.processing_until ?? null, payment_in_doubt: Boolean(row.payment_in_doubt), recent_failures: Number(row.recent_failures) };
}

/**
 * Locks the transaction, asks `rule`, and on yes sets what `set` says; false (nothing written)
 * on no. The row is locked, so the update's answer says nothing new: it goes to the database
 * with the caller's next statement (writeTogether's `withNext`), which in every caller follows
 * at once (a payment's gateway call row, a challenge taken, an event, the next row of the
 * expiry's round, the commit).
 */
async function ifAllowed(trx: Tx, transactionId: string, now: Date, rule: (f: TransactionFacts, at: string) => boolean, set: Updateable<Tables['transactions']>): Promise<boolean> {
  const facts = await lockedFacts(trx, transactionId, now);
  if (!facts || !rule(facts, now.toISOString())) return false;
  await writeTogether(trx, [trx.updateTable('transactions').set(set).where('id', '=', transactionId).compile()], { withNext: true });
  return true;
}

/** Claimed for one payment attempt until `until` (domain/payment-claim.ts mayClaimPayment); false when the rule refuses it. */
export const claimForPayment = (trx: Tx, transactionId: string, until: string | null, now: Date) => ifAllowed(trx, transactionId, now, mayClaimPayment, { processing_until: until });

/** The customer cancels: only a pending, unexpired transaction no one is paying (domain/payment-claim.ts mayCancel). */
export const markCancelled = (trx: Tx, transactionId: string, now: Date) => ifAllowed(trx, transactionId, now, mayCancel, { status: 'C', updated_at: now.toISOString() });

/** Stored E when due (domain/payment-claim.ts dueForExpiry: the same guard as a payment claim, so an attempt in progress is never expired under it). */
export const expireIfDue = (trx: Tx, transactionId: string, now: Date) => ifAllowed(trx, transactionId, now, dueForExpiry, { status: 'E', updated_at: now.toISOString() });

/** markTransactionPaidPlanned's statement, compiled once. */
const markPaidQuery = compiledOnce((db, transactionId: string, at: string) =>
  db
    .updateTable('transactions')
    .set({ status: 'D', processing_until: null, updated_at: at })
    .where('id', '=', transactionId)
    .where('status', '=', 'N')
    .returningAll()
    .returning((eb) => linesColumn(db, eb)),
);

/**
 * N → D: the transaction is paid: its row as that leaves it (what the payment's writes and
 * events name, without reading it again). None when it had moved on meanwhile (paid by
 * another attempt, cancelled, expired): nothing written.
 */
export function markTransactionPaidPlanned(trx: Tx, transactionId: string, now: Date): Planned<StoredTransaction | undefined> {
  return {
    query: markPaidQuery.compile(trx, transactionId, now.toISOString()),
    read({ rows: [paid] }: QueryResult<Awaited<ReturnType<typeof markPaidQuery>>[number]>) {
      if (!paid) return undefined;
      const { lines, ...row } = paid;
      return { row: transactionFromRow(row), lines: linesFrom(lines) };
    },
  };
}

/** The attempt's claim given back (declined, abandoned, or a challenge opened): the transaction takes the next one, if still pending. */
export async function releasePaymentClaim(trx: Tx, transactionId: string): Promise<void> {
  await trx.updateTable('transactions').set({ processing_until: null }).where('id', '=', transactionId).where('status', '=', 'N').execute();
}

/** The transaction changed (a payment of unknown outcome): what is kept of its page must go (checkout/page-cache.ts). */
export async function touchTransaction(trx: Tx, id: string, now: Date): Promise<void> {
  await trx.updateTable('transactions').set({ updated_at: now.toISOString() }).where('id', '=', id).execute();
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

/** A reserved source payment whose claim ran out (`lapsed`, as read) taken over until `until`; false when another process took it first. */
export async function takeOverSourcePayment(trx: Tx, transactionId: string, lapsed: string, until: string): Promise<boolean> {
  const taken = await trx
    .updateTable('transactions')
    .set({ processing_until: until })
    .where('id', '=', transactionId)
    .where('source_state', '=', 'reserved')
    .where('processing_until', '=', lapsed)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}
