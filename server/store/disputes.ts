import { AWAITING_RESPONSE, type DisputeStatus, disputeBalance, type EvidenceText, isClosed } from '../domain/disputes';
import { uuidv7 } from '../domain/ids';
import { insertBalanceTransaction } from './balance';
import { type Db, type Tx } from './db';
import { claimEach, forUpdate } from './locking';
import { linkDispute } from './sale-aggregate';
import { countAndPage, type Page } from './paging';
import type { BalanceTransactionRow, DisputeFileRow, DisputeRow, SaleRow } from './schema';

// Disputes' rows. Each step of a dispute (payments/disputes.ts) is one database transaction
// that moves its status by a conditional UPDATE (from the status it was read in), so of
// two processes taking the same step exactly one does it, with its money: the sale's
// `disputed` (a conditional UPDATE too), the balance transaction, its ledger movement.
// Disputes and their files are written here alone (WRITERS in eslint.config.js), a
// processor's too: the processor-disputes job's claim and what the processor was told.

export type DisputeFile = Omit<DisputeFileRow, 'data'>;

/** A file as the merchant adds it: the processor's id comes once it is uploaded there. */
export type NewDisputeFile = Omit<DisputeFileRow, 'id' | 'dispute_id' | 'created_at' | 'processor_file_id'>;

export interface StoredDispute {
  row: DisputeRow;
  evidence: EvidenceText;
  files: DisputeFile[];
}

const FILE_COLUMNS = ['id', 'dispute_id', 'file_name', 'content_type', 'size', 'sha256', 'created_at', 'processor_file_id'] as const;

async function withFiles(db: Db, rows: DisputeRow[]): Promise<StoredDispute[]> {
  const files = rows.length
    ? await db.selectFrom('dispute_files').select(FILE_COLUMNS).where('dispute_id', 'in', rows.map((r) => r.id)).orderBy('id').execute()
    : [];
  return rows.map((row) => ({ row, evidence: JSON.parse(row.evidence) as EvidenceText, files: files.filter((f) => f.dispute_id === row.id) }));
}

export async function getDispute(db: Db, environmentId: string | null, id: string): Promise<StoredDispute | undefined> {
  let query = db.selectFrom('disputes').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  const row = await query.executeTakeFirst();
  return row && (await withFiles(db, [row]))[0];
}

/** The dispute with its files, its row locked until the transaction ends (FOR UPDATE; SQLite has one writer). */
export async function lockDispute(trx: Tx, id: string): Promise<StoredDispute | undefined> {
  const row = await forUpdate(trx, trx.selectFrom('disputes').selectAll().where('id', '=', id)).executeTakeFirst();
  return row && (await withFiles(trx, [row]))[0];
}

export interface DisputeFilters {
  status?: DisputeStatus;
  reason?: DisputeRow['reason'];
  sale_id?: string;
  currency?: string;
}

export async function listDisputes(db: Db, environmentId: string, f: DisputeFilters, page: Page) {
  let query = db.selectFrom('disputes').where('environment_id', '=', environmentId);
  for (const [column, value] of Object.entries(f)) {
    if (value !== undefined) query = query.where(column as keyof DisputeFilters, '=', value);
  }
  const { count, rows } = await countAndPage<DisputeRow>(query, page);
  return { count, items: await withFiles(db, rows) };
}

/** The disputes waiting for the merchant's answer, the nearest deadline first (the dashboard). */
export function disputesAwaitingResponse(db: Db, environmentId: string, limit: number): Promise<DisputeRow[]> {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('status', 'in', AWAITING_RESPONSE)
    .orderBy('evidence_due_by')
    .limit(limit)
    .execute();
}

/** What the dashboard names a disputed payment by besides its reference: its transaction's order and customer, the sale's card. */
export interface DisputedPayment {
  transaction_id: string | null;
  order_id: string | null;
  customer_email: string | null;
  card_brand: string | null;
  card_last4: string | null;
}

/** The disputed payments of `saleIds` in the environment, by sale id: one query for a page of disputes. */
export async function disputedPaymentsOf(db: Db, environmentId: string, saleIds: string[]): Promise<Map<string, DisputedPayment>> {
  if (!saleIds.length) return new Map();
  const rows = await db
    .selectFrom('sales')
    .leftJoin('transactions', 'transactions.id', 'sales.transaction_id')
    .select(['sales.id', 'sales.transaction_id', 'transactions.order_id', 'transactions.customer_email', 'sales.card_brand', 'sales.card_last4'])
    .where('sales.environment_id', '=', environmentId)
    .where('sales.id', 'in', [...new Set(saleIds)])
    .execute();
  return new Map(rows.map(({ id, customer_email, ...payment }) => [id, { ...payment, customer_email: customer_email ?? null }]));
}

/** A dispute's balance transaction for its money taken (`debit`) or given back (`reversal`). */
/** Whether a dispute's money left the merchant's balance (its `dispute` balance transaction). */
export async function disputeDebited(trx: Tx, disputeId: string): Promise<boolean> {
  const row = await trx.selectFrom('balance_transactions').select('id').where('dispute_id', '=', disputeId).where('type', '=', 'dispute').executeTakeFirst();
  return row !== undefined;
}

export async function insertDisputeBalance(trx: Tx, d: DisputeRow, money: 'debit' | 'reversal', now: Date): Promise<BalanceTransactionRow> {
  const at = now.toISOString();
  const b = disputeBalance(money, BigInt(d.amount), BigInt(d.fee));
  const row: BalanceTransactionRow = {
    id: uuidv7(now.getTime()),
    environment_id: d.environment_id,
    type: b.type,
    sale_id: d.sale_id,
    dispute_id: d.id,
    payout_id: null,
    operation_id: null,
    currency: d.currency,
    amount: Number(b.amount),
    fee: Number(b.fee),
    net: Number(b.net),
    // Money out and money given back are both available at once.
    available_on: at,
    created_at: at,
  };
  await insertBalanceTransaction(trx, row);
  return row;
}

/** Inserts a dispute and names it on its sale; false when the sale has one already. */
export async function insertDispute(trx: Tx, row: DisputeRow): Promise<boolean> {
  const inserted = await trx.insertInto('disputes').values(row).onConflict((oc) => oc.column('sale_id').doNothing()).executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
  await linkDispute(trx, row.sale_id, row.id, row.created_at);
  return true;
}

/**
 * Moves a dispute to `to` (with the time it was submitted or closed) from the status, the
 * evidence and the time it was read with: false when another step came first.
 */
export async function markDisputeMoved(trx: Tx, dispute: DisputeRow, to: DisputeStatus, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const submitted = to === 'under_review' || to === 'warning_under_review';
  const moved = await trx
    .updateTable('disputes')
    .set({ status: to, updated_at: at, ...(submitted ? { submitted_at: at } : {}), ...(isClosed(to) ? { closed_at: at } : {}) })
    .where('id', '=', dispute.id)
    .where('status', '=', dispute.status)
    // Unchanged since it was read: the deadline never judges evidence older than what was saved.
    .where('evidence', '=', dispute.evidence)
    .where('updated_at', '=', dispute.updated_at)
    .executeTakeFirst();
  return Number(moved.numUpdatedRows) === 1;
}

/** Adds evidence (text merged over what was saved, files added) while the dispute awaits it; false when it no longer does. */
export async function saveEvidence(
  trx: Tx,
  e: { dispute: DisputeRow; evidence: EvidenceText; files: NewDisputeFile[]; now: Date; sync?: DisputeRow['processor_sync'] },
): Promise<boolean> {
  const at = e.now.toISOString();
  // Conditional on the evidence read: two uploads at once cannot lose each other's text.
  const moved = await trx
    .updateTable('disputes')
    .set({ evidence: JSON.stringify(e.evidence), updated_at: at, ...(e.sync ? { processor_sync: e.sync } : {}) })
    .where('id', '=', e.dispute.id)
    .where('status', 'in', AWAITING_RESPONSE)
    .where('evidence', '=', e.dispute.evidence)
    .executeTakeFirst();
  if (Number(moved.numUpdatedRows) !== 1) return false;
  for (const f of e.files) {
    await trx.insertInto('dispute_files').values({ ...f, id: uuidv7(e.now.getTime()), dispute_id: e.dispute.id, created_at: at, processor_file_id: null }).execute();
  }
  return true;
}

/** Disputes still awaiting an answer whose deadline has passed, oldest deadline first; a processor's decides its own deadline. */
export function overdueDisputes(db: Db, now: Date, limit: number): Promise<DisputeRow[]> {
  return db
    .selectFrom('disputes')
    .selectAll()
    .where('processor_id', 'is', null)
    .where('status', 'in', AWAITING_RESPONSE)
    .where('evidence_due_by', '<=', now.toISOString())
    .orderBy('evidence_due_by')
    .limit(limit)
    .execute();
}

/** Disputes of `gatewayId`'s sales submitted before `before`, for its bank's decision. */
export function submittedDisputes(db: Db, gatewayId: string, before: Date, limit: number): Promise<DisputeRow[]> {
  return db
    .selectFrom('disputes')
    .innerJoin('sales', 'sales.id', 'disputes.sale_id')
    .selectAll('disputes')
    .where('sales.gateway_id', '=', gatewayId)
    .where('disputes.status', 'in', ['under_review', 'warning_under_review'])
    .where('disputes.submitted_at', '<=', before.toISOString())
    .orderBy('disputes.submitted_at')
    .limit(limit)
    .execute();
}

/**
 * Sales of `gatewayId` paid with a card ending in one of `last4s`, with money captured and
 * not refunded nor disputed, captured before `before`, and no dispute yet: the sandbox
 * bank's candidates. A card charge that paid part of a `source` is left out.
 */
export function disputableSales(db: Db, c: DisputableSalesOf): Promise<SaleRow[]> {
  return disputableSalesQuery(db, c).execute();
}

interface DisputableSalesOf {
  gatewayId: string;
  last4s: string[];
  before: Date;
  limit: number;
}

/** The statement of disputableSales, by the index of migration 145 (its plan is tested: test/api/disputes.test.ts). */
export const disputableSalesQuery = (db: Db, c: DisputableSalesOf) =>
  db
    .selectFrom('sales')
    .selectAll()
    .where('gateway_id', '=', c.gatewayId)
    .where('card_last4', 'in', c.last4s)
    .where('source_transaction_id', 'is', null)
    .where((eb) => eb('captured', '>', eb(eb(eb.ref('refunded'), '+', eb.ref('refunding')), '+', eb.ref('disputed'))))
    .where(({ exists, not, selectFrom }) => not(exists(selectFrom('disputes').select('id').whereRef('disputes.sale_id', '=', 'sales.id'))))
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('sale_operations')
          .select('id')
          .whereRef('sale_operations.sale_id', '=', 'sales.id')
          .where('kind', 'in', ['capture', 'charge'])
          .where('created_at', '<=', c.before.toISOString()),
      ),
    )
    .orderBy('id')
    .limit(c.limit);

/** Marks what the processor must be told of a dispute of its (the processor-disputes job sends it), in the step's transaction. */
export async function markProcessorSync(trx: Tx, id: string, sync: NonNullable<DisputeRow['processor_sync']>): Promise<void> {
  await trx.updateTable('disputes').set({ processor_sync: sync }).where('id', '=', id).execute();
}

/** Claims, until `until`, the disputes with an answer the processor has not been told, whose earlier claim (if any) ran out. */
export function claimProcessorDisputes(db: Db, now: Date, until: Date, limit: number): Promise<DisputeRow[]> {
  const at = now.toISOString();
  const due = db
    .selectFrom('disputes')
    .selectAll()
    .where('processor_sync', 'is not', null)
    .where((eb) => eb.or([eb('processor_claimed_until', 'is', null), eb('processor_claimed_until', '<=', at)]))
    .orderBy('updated_at')
    .limit(limit);
  return claimEach(db, due, async (row) => {
    const taken = await db
      .updateTable('disputes')
      .set({ processor_claimed_until: until.toISOString() })
      .where('id', '=', row.id)
      .where('processor_sync', 'is not', null)
      .where((eb) => eb.or([eb('processor_claimed_until', 'is', null), eb('processor_claimed_until', '<=', at)]))
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1 ? row : undefined;
  });
}

/**
 * What the processor was told: the ids of the files uploaded, and the answer marked told
 * unless the merchant changed the dispute since it was read (`updatedAt`): then the next
 * round sends it again. true when the dispute's answer is all told.
 */
export async function markTold(trx: Tx, d: Pick<DisputeRow, 'id' | 'updated_at'>, files: Record<string, string>): Promise<boolean> {
  for (const [id, processorFileId] of Object.entries(files)) {
    await trx.updateTable('dispute_files').set({ processor_file_id: processorFileId }).where('id', '=', id).where('dispute_id', '=', d.id).execute();
  }
  const told = await trx
    .updateTable('disputes')
    .set({ processor_sync: null, processor_claimed_until: null })
    .where('id', '=', d.id)
    .where('updated_at', '=', d.updated_at)
    .executeTakeFirst();
  if (Number(told.numUpdatedRows) === 1) return true;
  // Changed meanwhile: free for the next round at once.
  await trx.updateTable('disputes').set({ processor_claimed_until: null }).where('id', '=', d.id).execute();
  return false;
}
