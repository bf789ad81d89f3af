import { type Price } from '../domain/fees';
import { PAYOUT_TYPES } from '../domain/merchant-payouts';
import { keptPerDatabase, settingsChanged } from './auth-changes';
import type { Db, Tx } from './db';
import { type Destination, destinationsOf } from './destinations';
import { countAndPage, type Page } from './paging';
import type { BalanceTransactionRow, EnvironmentPricingRow, SaleOperationRow, SaleRow } from './schema';

// The merchant's balance transactions and an environment's pricing. A balance transaction
// is written at most once per sale operation (a unique index on operation_id: a second
// process's insert does nothing); payments/balance.ts writes its ledger movement with it.
// Balance transactions are written here alone (WRITERS in eslint.config.js): a dispute's
// and a payout's own rows, a payout's lines taken and given back, for their callers.

/** How long money in stays pending when an environment has set nothing (docs/balance.md). */
export const DEFAULT_SETTLEMENT_DELAY_DAYS = 2;

/** The fixed fee per dispute when an environment has set none (docs/disputes.md). */
const DEFAULT_DISPUTE_FEE = 1500n;

export interface Pricing {
  charge: Price;
  refund: Price;
  settlementDelayDays: number;
  /** The fixed fee per dispute, minor units of the sale's currency. */
  disputeFixed: bigint;
}

const pricingRow = (db: Db, environmentId: string) => db.selectFrom('environment_pricing').selectAll().where('environment_id', '=', environmentId).executeTakeFirst();

/** Each database's pricings, kept until a setting changes (auth-changes.ts; migration 131): read by every round of the balance job. */
const keptPricings = keptPerDatabase(pricingRow);

export async function pricingOf(db: Db, environmentId: string): Promise<Pricing> {
  const row = await keptPricings(db, environmentId);
  return {
    charge: { percentE2: BigInt(row?.charge_percent_e2 ?? 0), fixed: BigInt(row?.charge_fixed ?? 0) },
    refund: { percentE2: BigInt(row?.refund_percent_e2 ?? 0), fixed: BigInt(row?.refund_fixed ?? 0) },
    settlementDelayDays: Number(row?.settlement_delay_days ?? DEFAULT_SETTLEMENT_DELAY_DAYS),
    disputeFixed: BigInt(row?.dispute_fixed ?? DEFAULT_DISPUTE_FEE),
  };
}

/** Replaces an environment's pricing; it applies to balance transactions made from now on. */
export async function setPricing(db: Db, environmentId: string, p: Omit<Pricing, 'disputeFixed'> & { disputeFixed?: bigint }, now: Date): Promise<void> {
  const row: EnvironmentPricingRow = {
    environment_id: environmentId,
    charge_percent_e2: Number(p.charge.percentE2),
    charge_fixed: Number(p.charge.fixed),
    refund_percent_e2: Number(p.refund.percentE2),
    refund_fixed: Number(p.refund.fixed),
    settlement_delay_days: p.settlementDelayDays,
    updated_at: now.toISOString(),
    dispute_fixed: Number(p.disputeFixed ?? DEFAULT_DISPUTE_FEE),
  };
  const { environment_id: _, ...set } = row;
  await db.insertInto('environment_pricing').values(row).onConflict((oc) => oc.column('environment_id').doUpdateSet(set)).execute();
  settingsChanged();
}

export interface DueOperation {
  operation: SaleOperationRow;
  sale: SaleRow;
  /** The sale's transaction's split (its `destination`, decoded); empty without one. */
  destinations: Destination[];
}

/** The statement of dueOperations (below), by the index of migration 144 (its plan is tested: test/api/balance.test.ts). */
export const dueOperationsQuery = (db: Db, limit: number) =>
  db
    .selectFrom('sale_operations')
    .selectAll()
    .where('balance_checked_at', 'is', null)
    .orderBy('id')
    .limit(limit);

/**
 * Sale operations the balance job has not dealt with yet (balance_checked_at null), oldest
 * first, each with its sale: by the partial index of migration 144, so a round reads its
 * batch whatever the history.
 */
export async function dueOperations(db: Db, limit: number): Promise<DueOperation[]> {
  const ops = await dueOperationsQuery(db, limit).execute();
  if (!ops.length) return [];
  // Each sale with its transaction's split, read with it.
  const sales = await db
    .selectFrom('sales')
    .leftJoin('transactions', 'transactions.id', 'sales.transaction_id')
    .selectAll('sales')
    .select('transactions.destination as split')
    .where('sales.id', 'in', [...new Set(ops.map((o) => o.sale_id))])
    .execute();
  const byId = new Map(sales.map(({ split, ...sale }) => [sale.id, { sale, destinations: destinationsOf(split) ?? [] }]));
  return ops.map((operation) => ({ operation, ...byId.get(operation.sale_id)! }));
}

/** What a ledger movement moved on the `merchant` account (signed minor units). */
export async function merchantMoved(db: Db, movementId: string): Promise<bigint> {
  const { total } = await db
    .selectFrom('ledger_entries')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('amount'), eb.lit(0)).as('total'))
    .where('movement_id', '=', movementId)
    .where('account', '=', 'merchant')
    .executeTakeFirstOrThrow();
  return BigInt(total);
}

/** The refunds of a sale confirmed before `operationId` (ids are time-ordered). */
export async function refundedBefore(db: Db, saleId: string, operationId: string): Promise<bigint> {
  const { total } = await db
    .selectFrom('sale_operations')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('amount'), eb.lit(0)).as('total'))
    .where('sale_id', '=', saleId)
    .where('kind', '=', 'refund')
    .where('id', '<', operationId)
    .executeTakeFirstOrThrow();
  return BigInt(total);
}

/**
 * Inserts balance transactions, each at most once: those another process recorded first
 * (the unique operation_id) are not inserted. Resolves with the ids inserted here.
 */
export async function insertBalanceTransactions(trx: Tx, rows: BalanceTransactionRow[]): Promise<Set<string>> {
  const recorded = new Set<string>();
  // 14 columns × 50 rows: under SQLite's cap on bound parameters.
  for (let i = 0; i < rows.length; i += 50) {
    const inserted = await trx.insertInto('balance_transactions').values(rows.slice(i, i + 50)).onConflict((oc) => oc.column('operation_id').doNothing()).returning('id').execute();
    for (const { id } of inserted) recorded.add(id);
  }
  return recorded;
}

/** Inserts one balance transaction: a dispute's money (store/disputes.ts), a payout's own (store/merchant-payouts.ts). */
export async function insertBalanceTransaction(trx: Tx, row: BalanceTransactionRow): Promise<void> {
  await trx.insertInto('balance_transactions').values(row).execute();
}

/** Marks a payout's lines with its id, 500 to a statement (SQLite's cap on bound parameters). */
export async function takePayoutLines(trx: Tx, payoutId: string, ids: string[]) {
  for (let i = 0; i < ids.length; i += 500) {
    const some = ids.slice(i, i + 500);
    const taken = await trx.updateTable('balance_transactions').set({ payout_id: payoutId }).where('id', 'in', some).where('payout_id', 'is', null).executeTakeFirst();
    // Locked since the read (or the one writer's, on SQLite): nobody else can have taken one.
    if (Number(taken.numUpdatedRows) !== some.length) throw new Error(`payout ${payoutId}: a line was taken meanwhile`);
  }
}

/** A failed payout's lines, free for the next payout (its own balance transactions stay its). */
export async function releasePayoutLines(trx: Tx, payoutId: string): Promise<void> {
  await trx.updateTable('balance_transactions').set({ payout_id: null }).where('payout_id', '=', payoutId).where('type', 'not in', [...PAYOUT_TYPES]).execute();
}

export function getBalanceTransaction(db: Db, environmentId: string, id: string): Promise<BalanceTransactionRow | undefined> {
  return db.selectFrom('balance_transactions').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
}

export interface BalanceFilters {
  type?: BalanceTransactionRow['type'];
  sale_id?: string;
  currency?: string;
}

export function listBalanceTransactions(db: Db, environmentId: string, f: BalanceFilters, page: Page) {
  let query = db.selectFrom('balance_transactions').where('environment_id', '=', environmentId);
  for (const [column, value] of Object.entries(f)) {
    if (value !== undefined) query = query.where(column as keyof BalanceFilters, '=', value);
  }
  return countAndPage<BalanceTransactionRow>(query, page);
}

/**
 * The currencies the environment holds money in (any balance transaction), in order: what
 * settings show a fixed fee in. The currency of each row only, not balanceOf's sums.
 */
export async function balanceCurrencies(db: Db, environmentId: string): Promise<string[]> {
  const rows = await db.selectFrom('balance_transactions').select('currency').distinct().where('environment_id', '=', environmentId).orderBy('currency').execute();
  return rows.map((r) => r.currency);
}

/** Per currency: the net of what is available by `now` and of what is still pending. */
export async function balanceOf(db: Db, environmentId: string, now: Date): Promise<{ currency: string; available: bigint; pending: bigint }[]> {
  const at = now.toISOString();
  const rows = await db
    .selectFrom('balance_transactions')
    .select((eb) => [
      'currency',
      eb.fn.sum<number | string>(eb.case().when('available_on', '<=', at).then(eb.ref('net')).else(0).end()).as('available'),
      eb.fn.sum<number | string>(eb.case().when('available_on', '>', at).then(eb.ref('net')).else(0).end()).as('pending'),
    ])
    .where('environment_id', '=', environmentId)
    .groupBy('currency')
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({ currency: r.currency, available: BigInt(r.available), pending: BigInt(r.pending) }));
}
