import { exponentOf } from '../domain/currencies';
import { type Cell, number, text } from '../domain/csv';
import { shownPeriod } from '../domain/merchant-payouts';
import type { PayoutState } from '../domain/sepa/states';
import { unitsToFixed } from '../domain/money';
import { paymentReference } from '../domain/payment-reference';
import { zonedIso } from '../domain/time-zone';
import { paymentStatus, paymentStatusOfSale } from '../domain/payment-status';
import type { Db } from '../store/db';
import {
  type ExportRange,
  exportBalanceTransactions,
  exportMerchantPayouts,
  exportPayments,
  exportPayouts,
  exportRefunds,
  exportSales,
  exportWalletEntries,
} from '../store/exports';
import type { DashboardText } from './i18n';

// What each export holds: its columns (docs/dashboard.md lists them) and how a row becomes
// cells. Amounts are decimals in the row's currency ("10.50"), times are ISO 8601 in the
// shop's time zone with its offset ("2026-12-02T17:05:00.000+01:00"),
// a status (a payment's, a sale's, a payout's) is in the words the dashboard shows, in the reader's language.

// `payouts` are the wallets' payouts to clients' IBANs (the name it was released with, kept
// so its URLs still work); `merchant_payouts` the balance's payouts to the merchant's bank.
export const EXPORT_KINDS = ['transactions', 'sales', 'refunds', 'payouts', 'wallet_entries', 'merchant_payouts', 'balance_transactions'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];
export const isExportKind = (kind: string): kind is ExportKind => (EXPORT_KINDS as readonly string[]).includes(kind);

/** Who reads the file: their words (statuses in them), when (a waiting payment's link may have expired since), and their time zone. */
export interface ExportReader {
  t: DashboardText['t'];
  now: Date;
  timeZone: string;
}

/** An export's columns in order, each with how a row gives its cell. */
type Columns<Row> = Record<string, (row: Row, reader: ExportReader) => Cell>;

interface Export<Row> {
  columns: string[];
  rows(db: Db, range: ExportRange): AsyncGenerator<Row[]>;
  cells(row: Row, reader: ExportReader): Cell[];
}

const money = (units: number, currency: string) => number(unitsToFixed(units, exponentOf(currency)));
/** A sum that may be absent (no row summed), as PostgreSQL's text or SQLite's number. */
const summed = (units: number | string | null, currency: string) => (units === null ? number(null) : money(Number(units), currency));

/** An IBAN as a statement shows it: country and last four. */
const maskedIban = (iban: string | null) => (iban ? `${iban.slice(0, 2)}…${iban.slice(-4)}` : null);

/** Each column named once, with its cell: the header is the names in order. */
function define<Row>(rows: Export<Row>['rows'], columns: Columns<Row>): Export<unknown> {
  const cells = Object.values(columns);
  return { columns: Object.keys(columns), rows, cells: (row, reader) => cells.map((cell) => cell(row as Row, reader)) };
}

type Texts<Row> = { [K in keyof Row]: Row[K] extends string | null ? K : never }[keyof Row];

/** Columns shown as the row's text, under their own names. */
function texts<Row>(...names: Texts<Row>[]): Columns<Row> {
  return Object.fromEntries(names.map((name) => [name, (row: Row) => text(row[name] as string | null)]));
}

/** Columns of stored moments (ISO 8601 UTC), written in the reader's time zone, under their own names. */
function times<Row>(...names: Texts<Row>[]): Columns<Row> {
  return Object.fromEntries(
    names.map((name) => [name, (row: Row, reader: ExportReader) => {
      const at = row[name] as string | null;
      return text(at && zonedIso(new Date(at), reader.timeZone));
    }]),
  );
}

export const EXPORTS: Record<ExportKind, Export<unknown>> = {
  transactions: define(exportPayments, {
    ...texts('id'),
    ...times('created_at', 'updated_at'),
    ...texts('order_id'),
    status: (r, reader) => text(reader.t(`pay.status.${paymentStatus({ tx: r, sale: r.sale, lastAttempt: r.lastAttempt }, reader.now)}`)),
    reference: (r) => text(r.sale && paymentReference(r.sale.id)),
    customer_email: (r) => text(r.customer_email),
    currency: (r) => text(r.currency),
    items: (r) => money(r.items_price, r.currency),
    tax: (r) => money(r.tax_value, r.currency),
    shipping: (r) => money(r.shipping_value, r.currency),
    coupon: (r) => money(r.coupon_value, r.currency),
    total: (r) => money(r.total_price, r.currency),
    ...texts('source', 'destination'),
  }),
  sales: define(exportSales, {
    ...texts('id'),
    reference: (r) => text(paymentReference(r.id)),
    ...times('created_at'),
    ...texts('transaction_id', 'order_id'),
    customer_email: (r) => text(r.customer_email),
    ...texts('authorization_id'),
    status: (r, reader) => text(reader.t(`pay.status.${paymentStatusOfSale(r)}`)),
    currency: (r) => text(r.currency),
    amount: (r) => money(r.amount, r.currency),
    held: (r) => money(r.held, r.currency),
    captured: (r) => money(r.captured, r.currency),
    refunded: (r) => money(r.refunded, r.currency),
    voided: (r) => money(r.voided, r.currency),
    fee: (r) => summed(r.fee, r.currency),
    net: (r) => summed(r.net, r.currency),
    ...texts('card_brand', 'card_last4', 'failure'),
  }),
  refunds: define(exportRefunds, {
    ...texts('id'),
    ...times('created_at'),
    ...texts('sale_id', 'transaction_id', 'order_id'),
    customer_email: (r) => text(r.customer_email),
    ...texts('currency'),
    amount: (r) => money(r.amount, r.currency),
    ...texts('reason', 'card_brand', 'card_last4', 'gateway_reference'),
    ...times('failed_at'),
  }),
  payouts: define(exportPayouts, {
    ...texts('id'),
    ...times('created_at'),
    ...texts('transfer_id', 'source_wallet'),
    // Country and last four of the account paid, as the dashboard shows it; never the whole IBAN.
    iban_masked: (r) => text(maskedIban(r.iban)),
    currency: (r) => text(r.currency),
    amount: (r) => money(r.amount, r.currency),
    ...texts('concept'),
    // The column holds a payout's states only: the export takes transfers to an IBAN (store/exports.ts).
    status: (r, reader) => text(reader.t(`transfer.status.${r.status as PayoutState}`)),
    ...texts('failure'),
  }),
  wallet_entries: define(exportWalletEntries, {
    ...texts('id'),
    ...times('created_at'),
    ...texts('wallet'),
    seq: (r) => number(r.seq),
    currency: (r) => text(r.currency),
    amount: (r) => money(r.amount, r.currency),
    balance: (r) => (r.balance === null ? number(null) : money(r.balance, r.currency)),
    ...texts('concept', 'with_wallet', 'with_sale', 'with_external', 'transfer'),
  }),
  merchant_payouts: define(exportMerchantPayouts, {
    ...texts('id'),
    ...times('created_at', 'updated_at'),
    status: (r, reader) => text(reader.t(`payout.status.${r.status}`)),
    ...texts('schedule'),
    period: (r) => text(shownPeriod(r.period)),
    currency: (r) => text(r.currency),
    amount: (r) => money(r.amount, r.currency),
    line_count: (r) => number(r.line_count),
    // Named as the wallet payouts' column is: it holds the country and last four, never the IBAN.
    iban_masked: (r) => text(maskedIban(r.iban)),
    failure: (r) => text(r.failure),
  }),
  balance_transactions: define(exportBalanceTransactions, {
    ...texts('id'),
    ...times('created_at'),
    ...texts('type', 'sale_id', 'dispute_id', 'payout_id', 'currency'),
    amount: (r) => money(r.amount, r.currency),
    fee: (r) => money(r.fee, r.currency),
    net: (r) => money(r.net, r.currency),
    ...times('available_on'),
  }),
};
