import type { SelectQueryBuilder } from 'kysely';
import type { Db } from './db';
import type { LedgerEntryRow, MerchantPayoutRow, SaleOperationRow, SaleRow, TransactionRow, TransferRow } from './schema';

// The rows of a CSV export, read in batches by id (UUIDv7 ids sort by time): each batch is
// one query that starts after the last id of the one before, so an export of any length
// holds one batch in memory and never an open cursor or a transaction.

export interface ExportRange {
  environmentId: string;
  /** Created at or after (ISO time). */
  from: string;
  /** Created before (ISO time). */
  to: string;
  batch?: number;
}

const BATCH = 500;

/** `query` filtered to the range, in batches; `alias` prefixes its id and created_at columns when it joins. */
async function* inBatches<Row extends { id: string }>(
  // The builder's table types vary by export.
  query: SelectQueryBuilder<any, any, any>,
  r: ExportRange,
  alias = '',
): AsyncGenerator<Row[]> {
  const batch = r.batch ?? BATCH;
  const [id, created] = [`${alias}id`, `${alias}created_at`];
  const ranged = query.where(created, '>=', r.from).where(created, '<', r.to).orderBy(id).limit(batch);
  let after = '';
  for (;;) {
    const rows = (await ranged.where(id, '>', after).execute()) as Row[];
    if (rows.length) yield rows;
    if (rows.length < batch) return;
    after = rows[rows.length - 1]!.id;
  }
}

export const exportTransactions = (db: Db, r: ExportRange) =>
  inBatches<TransactionRow>(db.selectFrom('transactions').selectAll().where('environment_id', '=', r.environmentId), r);

export const exportSales = (db: Db, r: ExportRange) => inBatches<SaleRow>(db.selectFrom('sales').selectAll().where('environment_id', '=', r.environmentId), r);

export type RefundRow = SaleOperationRow & Pick<SaleRow, 'transaction_id' | 'currency' | 'card_brand' | 'card_last4'>;

export const exportRefunds = (db: Db, r: ExportRange) =>
  inBatches<RefundRow>(
    db
      .selectFrom('sale_operations as o')
      .innerJoin('sales as s', 's.id', 'o.sale_id')
      .selectAll('o')
      .select(['s.transaction_id', 's.currency', 's.card_brand', 's.card_last4'])
      .where('s.environment_id', '=', r.environmentId)
      .where('o.kind', '=', 'refund'),
    r,
    'o.',
  );

/** Transfers out of a wallet to a bank account. */
export const exportPayouts = (db: Db, r: ExportRange) =>
  inBatches<TransferRow>(db.selectFrom('transfers').selectAll().where('environment_id', '=', r.environmentId).where('destination_iban', 'is not', null), r);

/** Payouts of the environment's balance to its own bank account (not a wallet's to a client). */
export const exportMerchantPayouts = (db: Db, r: ExportRange) =>
  inBatches<MerchantPayoutRow>(db.selectFrom('merchant_payouts').selectAll().where('environment_id', '=', r.environmentId), r);

export const exportWalletEntries = (db: Db, r: ExportRange) =>
  inBatches<LedgerEntryRow>(db.selectFrom('ledger_entries').selectAll().where('environment_id', '=', r.environmentId).where('account', '=', 'wallet'), r);
