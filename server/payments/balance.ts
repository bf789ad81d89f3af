import { availableOn, balancePostings, type BalanceType, inPlatformBalance, movesBalance } from '../domain/balance';
import { feeOf } from '../domain/fees';
import { uuidv7 } from '../domain/ids';
import { type Posting, refundPostings, salePostings } from '../domain/ledger';
import type { Deps } from '../deps';
import { dueOperations, type DueOperation, insertBalanceTransactions, merchantMoved, type Pricing, pricingOf, refundedBefore } from '../store/balance';
import { inTransaction } from '../store/db';
import { splitOfList } from '../store/destinations';
import { markBalanceChecked } from '../store/sale-operations';
import type { BalanceTransactionRow } from '../store/schema';
import { type Movement, postMovements } from './ledger-posting';
import { processorSettledIds } from './settlement';

// The merchant's balance follows the sales: the balance job turns each confirmed capture,
// charge and refund into a balance transaction with its ledger movement and fee, shortly
// after the operation (docs/balance.md). A job rather than a step of every money path, so
// the paths that confirm a sale's money (the checkout, captures, charges, subscriptions,
// reconciliation) stay as they are, and a crash between the two only delays it.

/** The merchant's part of an operation and the card money its balance movement moves itself. */
async function merchantPart(deps: Pick<Deps, 'database'>, { operation, sale, destinations }: DueOperation): Promise<{ part: bigint; card: bigint }> {
  const db = deps.database.db;
  const amount = BigInt(operation.amount);
  const shares = sale.transaction_id ? splitOfList(destinations, sale.currency).shares : [];
  if (!shares.length) return { part: amount, card: amount };
  // A split sale's card money moved with the sale (and each refund's as it was reserved):
  // the merchant's part is what those movements gave or took from the `merchant` account.
  // A refund's is read from its movement: recomputed from the refunds confirmed before it,
  // it would round otherwise when a refund in flight as it was reserved was then refused.
  if (operation.kind === 'refund' && operation.movement_id) return { part: -(await merchantMoved(db, operation.movement_id)), card: 0n };
  const postings =
    operation.kind === 'refund'
      ? refundPostings(sale.id, BigInt(sale.amount), shares, await refundedBefore(db, sale.id, operation.id), amount)
      : salePostings(sale.id, amount, shares);
  const merchant = postings.find((p) => 'system' in p.account && p.account.system === 'merchant')?.amount ?? 0n;
  return { part: merchant < 0n ? -merchant : merchant, card: 0n };
}

/**
 * One round: up to `limit` operations not dealt with yet become balance transactions, or are
 * found not to be the platform's balance; resolves with how many this round dealt with.
 */
export async function postBalanceTransactions(deps: Pick<Deps, 'database' | 'now' | 'outbox' | 'gateways'>, limit = 50): Promise<number> {
  const db = deps.database.db;
  const read = await dueOperations(db, limit);
  const settled = processorSettledIds(deps.gateways.all);
  const due = read.filter((d) => movesBalance(d.operation.kind) && inPlatformBalance(d.sale, settled));
  // A round's operations are mostly one environment's: its pricing is read once a round.
  const pricings = new Map<string, Promise<Pricing>>();
  const pricingFor = (environmentId: string) => pricings.get(environmentId) ?? pricings.set(environmentId, pricingOf(db, environmentId)).get(environmentId)!;
  const now = deps.now();
  const made: NewBalanceTransaction[] = [];
  for (const [index, d] of due.entries()) {
    const type: BalanceType = d.operation.kind === 'refund' ? 'refund' : 'charge';
    const pricing = await pricingFor(d.sale.environment_id);
    const fee = feeOf(BigInt(d.operation.amount), type === 'charge' ? pricing.charge : pricing.refund);
    const { part, card } = await merchantPart(deps, d);
    const amount = type === 'charge' ? part : -part;
    const at = new Date(d.operation.created_at);
    made.push({
      row: {
        // One millisecond apart: uuidv7s of one millisecond sort at random, and a round's
        // balance transactions must keep their operations' order (lists go by id).
        id: uuidv7(now.getTime() + index),
        environment_id: d.sale.environment_id,
        type,
        sale_id: d.sale.id,
        dispute_id: null,
        payout_id: null,
        operation_id: d.operation.id,
        currency: d.sale.currency,
        amount: Number(amount),
        fee: Number(fee),
        net: Number(amount - fee),
        available_on: availableOn(type, at, pricing.settlementDelayDays).toISOString(),
        created_at: d.operation.created_at,
      },
      postings: balancePostings({ type, sale: d.sale.id, card, fee }),
    });
  }
  // Read first, then written together: the round's writes are one database transaction.
  return recordBalanceTransactions(deps, made, read.map((d) => d.operation.id), now);
}

/** A balance transaction to record, with its ledger postings (null: nothing to post). */
interface NewBalanceTransaction {
  row: BalanceTransactionRow;
  postings: Posting[] | null;
}

/**
 * Records balance transactions with their ledger movements and marks the round's operations
 * dealt with, all in one database transaction (a job's round: on SQLite, a message to the
 * writer per 50 rows rather than two an operation), each at most once: resolves with how
 * many operations were marked here, not by another process's round first.
 */
async function recordBalanceTransactions(deps: Pick<Deps, 'database' | 'outbox'>, made: NewBalanceTransaction[], operationIds: string[], now: Date): Promise<number> {
  if (!operationIds.length) return 0;
  return inTransaction(deps.database.db, async (trx) => {
    const recorded = await insertBalanceTransactions(trx, made.map((m) => m.row));
    // Each movement is named by the balance transaction just inserted: fresh.
    const movements: Movement[] = made.flatMap(({ row, postings }) =>
      postings && recorded.has(row.id) ? [{ environmentId: row.environment_id, currency: row.currency, movementId: row.id, concept: row.type, postings, now, fresh: true }] : [],
    );
    await postMovements(trx, deps.outbox, movements);
    return markBalanceChecked(trx, operationIds, now);
  });
}
