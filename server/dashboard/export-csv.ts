import { exponentOf } from '../domain/currencies';
import { type Cell, number, text } from '../domain/csv';
import { shownPeriod } from '../domain/merchant-payouts';
import { unitsToFixed } from '../domain/money';
import type { Db } from '../store/db';
import { type ExportRange, exportMerchantPayouts, exportPayouts, exportRefunds, exportSales, exportTransactions, exportWalletEntries } from '../store/exports';

// What each export holds: its columns (docs/dashboard.md lists them) and how a row becomes
// cells. Amounts are decimals in the row's currency ("10.50"), times are ISO 8601 in UTC.

// `payouts` are the wallets' payouts to clients' IBANs (the name it was released with, kept
// so its URLs still work); `merchant_payouts` the balance's payouts to the merchant's bank.
export const EXPORT_KINDS = ['transactions', 'sales', 'refunds', 'payouts', 'wallet_entries', 'merchant_payouts'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const isExportKind = (kind: string): kind is ExportKind => (EXPORT_KINDS as readonly string[]).includes(kind);

interface Export<Row> {
  columns: string[];
  rows(db: Db, range: ExportRange): AsyncGenerator<Row[]>;
  cells(row: Row): Cell[];
}

const money = (units: number, currency: string) => number(unitsToFixed(units, exponentOf(currency)));

/** An IBAN as a statement shows it: country and last four. */
const maskedIban = (iban: string | null) => (iban ? `${iban.slice(0, 2)}…${iban.slice(-4)}` : null);

const define = <Row>(e: Export<Row>) => e as Export<unknown>;

export const EXPORTS: Record<ExportKind, Export<unknown>> = {
  transactions: define({
    columns: ['id', 'created_at', 'updated_at', 'order_id', 'status', 'currency', 'items', 'tax', 'shipping', 'coupon', 'total', 'source', 'destination'],
    rows: exportTransactions,
    cells: (r) => [
      text(r.id),
      text(r.created_at),
      text(r.updated_at),
      text(r.order_id),
      text(r.status),
      text(r.currency),
      money(r.items_price, r.currency),
      money(r.tax_value, r.currency),
      money(r.shipping_value, r.currency),
      money(r.coupon_value, r.currency),
      money(r.total_price, r.currency),
      text(r.source),
      text(r.destination),
    ],
  }),
  sales: define({
    columns: ['id', 'created_at', 'transaction_id', 'authorization_id', 'currency', 'amount', 'held', 'captured', 'refunded', 'voided', 'card_brand', 'card_last4', 'failure'],
    rows: exportSales,
    cells: (r) => [
      text(r.id),
      text(r.created_at),
      text(r.transaction_id),
      text(r.authorization_id),
      text(r.currency),
      money(r.amount, r.currency),
      money(r.held, r.currency),
      money(r.captured, r.currency),
      money(r.refunded, r.currency),
      money(r.voided, r.currency),
      text(r.card_brand),
      text(r.card_last4),
      text(r.failure),
    ],
  }),
  refunds: define({
    columns: ['id', 'created_at', 'sale_id', 'transaction_id', 'currency', 'amount', 'card_brand', 'card_last4', 'gateway_reference'],
    rows: exportRefunds,
    cells: (r) => [
      text(r.id),
      text(r.created_at),
      text(r.sale_id),
      text(r.transaction_id),
      text(r.currency),
      money(r.amount, r.currency),
      text(r.card_brand),
      text(r.card_last4),
      text(r.gateway_reference),
    ],
  }),
  payouts: define({
    columns: ['id', 'created_at', 'transfer_id', 'source_wallet', 'iban', 'currency', 'amount', 'concept', 'status', 'failure'],
    rows: exportPayouts,
    cells: (r) => [
      text(r.id),
      text(r.created_at),
      text(r.transfer_id),
      text(r.source_wallet),
      text(maskedIban(r.destination_iban)),
      text(r.currency),
      money(r.amount, r.currency),
      text(r.concept),
      text(r.status),
      text(r.failure),
    ],
  }),
  wallet_entries: define({
    columns: ['id', 'created_at', 'wallet', 'seq', 'currency', 'amount', 'balance', 'concept', 'with_wallet', 'with_sale', 'with_external', 'transfer'],
    rows: exportWalletEntries,
    cells: (r) => [
      text(r.id),
      text(r.created_at),
      text(r.wallet),
      number(r.seq),
      text(r.currency),
      money(r.amount, r.currency),
      r.balance === null ? number(null) : money(r.balance, r.currency),
      text(r.concept),
      text(r.with_wallet),
      text(r.with_sale),
      text(r.with_external),
      text(r.transfer),
    ],
  }),
  merchant_payouts: define({
    columns: ['id', 'created_at', 'updated_at', 'status', 'schedule', 'period', 'currency', 'amount', 'line_count', 'iban', 'failure'],
    rows: exportMerchantPayouts,
    cells: (r) => [
      text(r.id),
      text(r.created_at),
      text(r.updated_at),
      text(r.status),
      text(r.schedule),
      text(shownPeriod(r.period)),
      text(r.currency),
      money(r.amount, r.currency),
      number(r.line_count),
      text(maskedIban(r.iban)),
      text(r.failure),
    ],
  }),
};
