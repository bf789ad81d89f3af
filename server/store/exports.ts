import type { SelectQueryBuilder } from 'kysely';
import type { Db } from './db';
import { type ListedSale, paymentFactsOf } from './payment-list';
import type { BalanceTransactionRow, ClientIbanRow, LedgerEntryRow, MerchantPayoutRow, SaleOperationRow, SaleRow, TransactionRow, TransferRow } from './schema';

// The rows of a CSV export, read in batches by id (UUIDv7 ids sort by time): each batch is
// one query that starts after the last id of the one before, so an export of any length
// holds one batch in memory and never an open cursor or a transaction.

export interface ExportRange {
  environmentId: string;
  /** Created at or after (ISO time). */
  from: string;
  /** Created before (ISO time). */
  to: string;
  /** Only rows of this type and currency: the balance transactions' export honours it (the Balance page's filters). */
  only?: { type?: BalanceTransactionRow['type']; currency?: string };
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

/** A transaction with what its status in words is read from (domain/payment-status.ts), as the payments list reads it. */
export type PaymentExportRow = TransactionRow & { sale: ListedSale | null; lastAttempt: string | null };

/** Each batch of transactions with its paying sale and last attempt: two more indexed queries a batch. */
export async function* exportPayments(db: Db, r: ExportRange): AsyncGenerator<PaymentExportRow[]> {
  for await (const rows of exportTransactions(db, r)) {
    const facts = await paymentFactsOf(db, r.environmentId, rows.map((row) => row.id));
    yield rows.map((row) => ({ ...row, sale: facts.sales.get(row.id) ?? null, lastAttempt: facts.lastAttempts.get(row.id) ?? null }));
  }
}

/**
 * A sale with its transaction's order id and customer, and what our balance took and kept
 * of it so far: the sums of its balance transactions (charge, refunds, disputes), `fee` as
 * the API's `sale.fee` sums it; null when it has none (a sale a processor settles, or one
 * not captured yet). Sums come back as text from PostgreSQL.
 */
export type SaleExportRow = SaleRow & Pick<TransactionRow, 'order_id' | 'customer_email'> & { fee: number | string | null; net: number | string | null };

export const exportSales = (db: Db, r: ExportRange) =>
  inBatches<SaleExportRow>(
    db
      .selectFrom('sales as s')
      .leftJoin('transactions as t', 't.id', 's.transaction_id')
      .selectAll('s')
      .select(['t.order_id', 't.customer_email'])
      .select((eb) => {
        const summed = (column: 'fee' | 'net') =>
          eb.selectFrom('balance_transactions as b').select((b) => b.fn.sum<number | null>(`b.${column}`).as(column)).whereRef('b.sale_id', '=', 's.id');
        return [summed('fee').as('fee'), summed('net').as('net')];
      })
      .where('s.environment_id', '=', r.environmentId),
    r,
    's.',
  );

/** `failed_at`: when the processor said the refund failed after all (its `refund_failed`), else null. */
export type RefundRow = SaleOperationRow & Pick<SaleRow, 'transaction_id' | 'currency' | 'card_brand' | 'card_last4'> & Pick<TransactionRow, 'order_id' | 'customer_email'> & { failed_at: string | null };

export const exportRefunds = (db: Db, r: ExportRange) =>
  inBatches<RefundRow>(
    db
      .selectFrom('sale_operations as o')
      .innerJoin('sales as s', 's.id', 'o.sale_id')
      .selectAll('o')
      .leftJoin('transactions as t', 't.id', 's.transaction_id')
      // A refund the processor failed later is undone by an operation of the same reference.
      .leftJoin('sale_operations as f', (j) => j.onRef('f.sale_id', '=', 'o.sale_id').onRef('f.gateway_reference', '=', 'o.gateway_reference').on('f.kind', '=', 'refund_failed'))
      .select(['s.transaction_id', 's.currency', 's.card_brand', 's.card_last4', 't.order_id', 't.customer_email', 'f.created_at as failed_at'])
      .where('s.environment_id', '=', r.environmentId)
      .where('o.kind', '=', 'refund'),
    r,
    'o.',
  );

/** A wallet's payout with the account it paid (`destination_iban` is the client IBAN's id, not the IBAN). */
export type WalletPayoutRow = TransferRow & Pick<ClientIbanRow, 'iban'>;

/** Transfers out of a wallet to a bank account. */
export const exportPayouts = (db: Db, r: ExportRange) =>
  inBatches<WalletPayoutRow>(
    db
      .selectFrom('transfers as x')
      .innerJoin('client_ibans as i', 'i.id', 'x.destination_iban')
      .selectAll('x')
      .select('i.iban')
      .where('x.environment_id', '=', r.environmentId),
    r,
    'x.',
  );

/** Payouts of the environment's balance to its own bank account (not a wallet's to a client). */
export const exportMerchantPayouts = (db: Db, r: ExportRange) =>
  inBatches<MerchantPayoutRow>(db.selectFrom('merchant_payouts').selectAll().where('environment_id', '=', r.environmentId), r);

export const exportWalletEntries = (db: Db, r: ExportRange) =>
  inBatches<LedgerEntryRow>(db.selectFrom('ledger_entries').selectAll().where('environment_id', '=', r.environmentId).where('account', '=', 'wallet'), r);

/** Every movement of the environment's own balance (payments/balance.ts). */
export const exportBalanceTransactions = (db: Db, r: ExportRange) =>
  inBatches<BalanceTransactionRow>(
    db
      .selectFrom('balance_transactions')
      .selectAll()
      .where('environment_id', '=', r.environmentId)
      .$if(!!r.only?.type, (q) => q.where('type', '=', r.only!.type!))
      .$if(!!r.only?.currency, (q) => q.where('currency', '=', r.only!.currency!)),
    r,
  );
