import type { PayoutKind, PayoutState } from '../domain/sepa/states';
import type { Db, Tx } from './db';
import { forUpdate } from './locking';
import { changeMerchantPayoutStatus, setMerchantPayoutWaitingReason } from './merchant-payouts';
import { countAndPage, type Page } from './paging';
import { changeTransferStatus, setTransferWaitingReason } from './transfers';
import type { BankStatementLineRow, BankStatementReportRow, PayoutFileItemRow, PayoutFileRow, PayoutStatusReportRow } from './schema';

// The rows of payouts by SEPA file (docs/balance.md#payout-files; written by
// payments/payout-files.ts and payments/bank-files.ts): the payouts waiting for a file,
// the files and their items, a payout's status changed from the state its reader saw
// (conditional updates, so a change is made once: the payout's own writer makes it,
// transfers.ts or merchant-payouts.ts), and what statements left behind.

/** A payout as a file needs it: whose, how much, and the creditor's account. */
export interface WaitingPayout {
  kind: PayoutKind;
  id: string;
  environment_id: string;
  currency: string;
  /** Minor units. */
  amount: number;
  iban: string;
  holder: string | null;
}

const TABLE = { merchant_payout: 'merchant_payouts', transfer: 'transfers' } as const;

/** Live environments with a payout pending in no file: the payout-files job's round, one environment at a time. */
export async function environmentsWaiting(db: Db): Promise<string[]> {
  const live = db.selectFrom('environments').select('id').where('mode', '=', 'live');
  const rows = await db
    .selectFrom('merchant_payouts')
    .select('environment_id')
    .where('status', '=', 'pending')
    .where('environment_id', 'in', live)
    .union(db.selectFrom('transfers').select('environment_id').where('status', '=', 'pending').where('destination_iban', 'is not', null).where('environment_id', 'in', live))
    .execute();
  return [...new Set(rows.map((r) => r.environment_id))].sort();
}

const inNoFile = (db: Db) => db.selectFrom('payout_file_items').select('payout_id').where('active', '=', 1);

/**
 * An environment's pending payouts in no file (not cancelled), oldest first: the merchant's
 * (their creditor name the one copied when made, else the settings' for the same IBAN) and
 * the wallets' to client IBANs (the IBAN's holder).
 */
export async function waitingPayouts(db: Db, environmentId: string, limit: number): Promise<WaitingPayout[]> {
  const merchant = await db
    .selectFrom('merchant_payouts as p')
    .leftJoin('merchant_payout_settings as s', (j) => j.onRef('s.environment_id', '=', 'p.environment_id').onRef('s.iban', '=', 'p.iban'))
    .select(['p.id', 'p.environment_id', 'p.currency', 'p.amount', 'p.iban', (eb) => eb.fn.coalesce('p.account_holder_name', 's.account_holder_name').as('holder')])
    .where('p.environment_id', '=', environmentId)
    .where('p.status', '=', 'pending')
    .where('p.id', 'not in', inNoFile(db))
    .orderBy('p.id')
    .limit(limit)
    .execute();
  const wallets = await db
    .selectFrom('transfers as t')
    .innerJoin('client_ibans as i', 'i.id', 't.destination_iban')
    .select(['t.id', 't.environment_id', 't.currency', 't.amount', 'i.iban', 'i.account_holder_name as holder'])
    .where('t.environment_id', '=', environmentId)
    .where('t.status', '=', 'pending')
    .where('t.id', 'not in', inNoFile(db))
    .orderBy('t.id')
    .limit(limit)
    .execute();
  return [...merchant.map((p) => ({ ...p, kind: 'merchant_payout' as const })), ...wallets.map((t) => ({ ...t, kind: 'transfer' as const }))]
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .slice(0, limit);
}

/** Why a pending payout is not in a file yet (a refusal it may get over: no creditor name), or null. */
export async function setWaitingReason(db: Db, kind: PayoutKind, id: string, reason: string | null, now: Date): Promise<void> {
  await (kind === 'transfer' ? setTransferWaitingReason : setMerchantPayoutWaitingReason)(db, id, reason, now);
}

/** A file and its items; a payout already in a file not cancelled makes the unique index refuse it all. */
export async function insertFile(trx: Tx, file: PayoutFileRow, items: PayoutFileItemRow[]): Promise<void> {
  await trx.insertInto('payout_files').values(file).execute();
  for (let i = 0; i < items.length; i += 100) await trx.insertInto('payout_file_items').values(items.slice(i, i + 100)).execute();
}

export function getFile(db: Db, environmentId: string, id: string): Promise<PayoutFileRow | undefined> {
  return db.selectFrom('payout_files').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
}

/** The file, locked until the transaction ends (a download, a cancel, an import: one at a time). */
export function lockFile(trx: Tx, environmentId: string, id: string): Promise<PayoutFileRow | undefined> {
  return forUpdate(trx, trx.selectFrom('payout_files').selectAll().where('environment_id', '=', environmentId).where('id', '=', id)).executeTakeFirst();
}

export function fileByMessageId(db: Db, environmentId: string, messageId: string): Promise<PayoutFileRow | undefined> {
  return db.selectFrom('payout_files').selectAll().where('environment_id', '=', environmentId).where('message_id', '=', messageId).executeTakeFirst();
}

export type FileFilters = Partial<Pick<PayoutFileRow, 'state'>>;

export function listFiles(db: Db, environmentId: string, f: FileFilters, page: Page) {
  let query = db.selectFrom('payout_files').where('environment_id', '=', environmentId);
  if (f.state) query = query.where('state', '=', f.state);
  return countAndPage<PayoutFileRow>(query, page);
}

/** A file's items with their payouts' current status. */
export async function fileItems(db: Db, fileId: string): Promise<(PayoutFileItemRow & { status: PayoutState })[]> {
  const items = await db.selectFrom('payout_file_items').selectAll().where('file_id', '=', fileId).orderBy('id').execute();
  return withStatus(db, items);
}

async function withStatus(db: Db, items: PayoutFileItemRow[]): Promise<(PayoutFileItemRow & { status: PayoutState })[]> {
  const status = new Map<string, PayoutState>();
  for (const kind of ['merchant_payout', 'transfer'] as const) {
    const ids = items.filter((i) => i.kind === kind).map((i) => i.payout_id);
    for (let i = 0; i < ids.length; i += 500) {
      const rows = await db.selectFrom(TABLE[kind]).select(['id', 'status']).where('id', 'in', ids.slice(i, i + 500)).execute();
      for (const r of rows) status.set(r.id, r.status as PayoutState);
    }
  }
  return items.map((i) => ({ ...i, status: status.get(i.payout_id)! }));
}

/** The environment's payouts in files not cancelled, with their status: what a statement is matched against. */
export async function activeItems(db: Db, environmentId: string): Promise<(PayoutFileItemRow & { status: PayoutState })[]> {
  const items = await db.selectFrom('payout_file_items').selectAll().where('environment_id', '=', environmentId).where('active', '=', 1).execute();
  return withStatus(db, items);
}

/**
 * Counts a download; the first moves the file from written to downloaded. True for the
 * first download, false for a later one (the answer then warns that uploading twice pays twice).
 */
export async function countDownload(trx: Tx, fileId: string, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const first = await trx
    .updateTable('payout_files')
    .set({ state: 'downloaded', downloaded_at: at, download_count: 1, updated_at: at })
    .where('id', '=', fileId)
    .where('state', '=', 'written')
    .executeTakeFirst();
  if (Number(first.numUpdatedRows) === 1) return true;
  await trx.updateTable('payout_files').set((eb) => ({ download_count: eb('download_count', '+', 1) })).where('id', '=', fileId).execute();
  return false;
}

export async function setFileState(trx: Tx, fileId: string, state: PayoutFileRow['state'], now: Date): Promise<void> {
  const at = now.toISOString();
  await trx
    .updateTable('payout_files')
    .set({ state, updated_at: at, ...(state === 'cancelled' ? { cancelled_at: at } : {}) })
    .where('id', '=', fileId)
    .execute();
  if (state === 'cancelled') await trx.updateTable('payout_file_items').set({ active: 0 }).where('file_id', '=', fileId).execute();
}

/** One status change of a payout, from the state its reader saw: false when it had changed meanwhile. */
export async function changePayoutStatus(trx: Tx, kind: PayoutKind, id: string, from: PayoutState, to: PayoutState, failure: string | null, now: Date): Promise<boolean> {
  return (kind === 'transfer' ? changeTransferStatus : changeMerchantPayoutStatus)(trx, id, from, to, failure, now);
}

/** The keys of the environment's reports imported before, of those given. */
export async function importedReports(db: Db, environmentId: string, keys: string[]): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const rows = await db.selectFrom('bank_statement_reports').select('report_key').where('environment_id', '=', environmentId).where('report_key', 'in', keys).execute();
  return new Set(rows.map((r) => r.report_key));
}

export async function insertReport(trx: Tx, row: BankStatementReportRow, lines: BankStatementLineRow[]): Promise<void> {
  await trx.insertInto('bank_statement_reports').values(row).execute();
  for (let i = 0; i < lines.length; i += 100) await trx.insertInto('bank_statement_lines').values(lines.slice(i, i + 100)).execute();
}

export async function insertStatusReport(trx: Tx, row: PayoutStatusReportRow): Promise<void> {
  await trx.insertInto('payout_status_reports').values(row).execute();
}

export function listUnmatchedLines(db: Db, environmentId: string, page: Page) {
  return countAndPage<BankStatementLineRow>(db.selectFrom('bank_statement_lines').where('environment_id', '=', environmentId), page);
}

/** The oldest file of the environment written and never downloaded: "waiting to be sent since …". */
export function oldestUnsentFile(db: Db, environmentId: string): Promise<Pick<PayoutFileRow, 'id' | 'created_at'> | undefined> {
  return db.selectFrom('payout_files').select(['id', 'created_at']).where('environment_id', '=', environmentId).where('state', '=', 'written').orderBy('created_at').limit(1).executeTakeFirst();
}
