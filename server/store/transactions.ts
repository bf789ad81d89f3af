import { type Expression, type ExpressionBuilder, type SqlBool, sql } from 'kysely';
import { containsPattern, type SearchTerms } from '../domain/transaction-search';
import { compiledOnce } from './compiled';
import { referenceMatch, statementMatch } from './search-match';
import { cardWhere, type PaymentListFilters, paymentFiltersWhere, statusIs } from './payment-filters';
import type { Db } from './db';
import { jsonRows, rowsOfJson } from './engine';
import { countAndPage, type Page } from './paging';
import { type Merchant, MERCHANT_COLUMNS, type MerchantColumns, splitMerchant } from './environments';
import { type Destination, destinationsOf } from './destinations';
import type { Tables, TransactionLineRow, TransactionRow, TransactionStatus } from './schema';

/** A source as sent at creation, stored as given (major units). */
export interface Source {
  amount: number;
  wallet_id?: string;
  authorization_id?: string;
}

/**
 * A transaction as the store hands it out: the row with its columns decoded (0/1 as
 * booleans, the JSON text of sources and destinations parsed). Readers never decode.
 */
export type Transaction = Omit<TransactionRow, 'gateway_selected' | 'authorize' | 'source' | 'destination'> & {
  gateway_selected: boolean;
  authorize: boolean;
  source: Source[] | null;
  destination: Destination[] | null;
};

export interface StoredTransaction {
  row: Transaction;
  lines: TransactionLineRow[];
}

/** Decodes a row as both engines store it. */
export function transactionFromRow(r: TransactionRow): Transaction {
  return {
    ...r,
    gateway_selected: r.gateway_selected === 1,
    authorize: r.authorize === 1,
    source: r.source ? (JSON.parse(r.source) as Source[]) : null,
    destination: destinationsOf(r.destination),
  };
}

export function transactionLines(db: Db, transactionId: string): Promise<TransactionLineRow[]> {
  return db.selectFrom('transaction_lines').selectAll().where('transaction_id', '=', transactionId).orderBy('position').execute();
}

const LINE_COLUMNS = ['id', 'transaction_id', 'position', 'product_ref', 'product_id', 'name', 'description', 'unit_price', 'quantity', 'line_total'] as const;

/**
 * The lines of the statement's `transactions` row as one JSON column, `lines`: a page or a
 * payment reads its transaction and its lines in one statement instead of two (issue 49).
 * Decoded by linesFrom.
 */
export function linesColumn(db: Db, eb: ExpressionBuilder<Tables, 'transactions'>) {
  const lines = eb.selectFrom('transaction_lines').select(LINE_COLUMNS).whereRef('transaction_lines.transaction_id', '=', 'transactions.id').orderBy('position');
  return jsonRows(db, lines).as('lines');
}

/** The lines of linesColumn, in their order. */
export const linesFrom = (column: unknown): TransactionLineRow[] => rowsOfJson<TransactionLineRow>(column).sort((a, b) => a.position - b.position);

export async function getTransaction(db: Db, environmentId: string, id: string): Promise<StoredTransaction | undefined> {
  const found = await db
    .selectFrom('transactions')
    .selectAll()
    .select((eb) => linesColumn(db, eb))
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!found) return undefined;
  const { lines, ...row } = found;
  return { row: transactionFromRow(row), lines: linesFrom(lines) };
}

/** What the checkout needs first: the transaction, its lines and the merchant it pays. */
export interface Checkout {
  row: Transaction;
  lines: TransactionLineRow[];
  merchant: Merchant;
  /** See checkoutVersion. */
  version: string;
  /** A payment of it is in doubt: being asked, of unknown outcome, or for a person to check. */
  inDoubt: boolean;
}

const fromMerchant = MERCHANT_COLUMNS;

const checkoutByToken = compiledOnce((db, token: string) =>
  db
    .selectFrom('transactions')
    .innerJoin('environments', 'environments.id', 'transactions.environment_id')
    .selectAll('transactions')
    .select(fromMerchant)
    .select((eb) => [linesColumn(db, eb), paymentInDoubt(eb)])
    .where('transactions.token', '=', token),
);

/** Whether a pay call of the row's transaction is in doubt (of unknown outcome, still pending or for a person to check). */
const paymentInDoubt = (eb: ExpressionBuilder<Tables, 'transactions'>) =>
  eb
    .exists(
      eb
        .selectFrom('gateway_calls')
        .select('gateway_calls.id')
        .whereRef('gateway_calls.subject_id', '=', 'transactions.id')
        .where('gateway_calls.state', 'in', ['pending', 'attention'])
        .where('gateway_calls.kind', '=', 'pay')
        .where('gateway_calls.unknown_since', 'is not', null),
    )
    .as('in_doubt');

const versionByToken = compiledOnce((db, token: string) =>
  db
    .selectFrom('transactions')
    .innerJoin('environments', 'environments.id', 'transactions.environment_id')
    .select(['transactions.status', 'transactions.updated_at', ...fromMerchant])
    .where('transactions.token', '=', token),
);

type Versioned = Pick<TransactionRow, 'status' | 'updated_at'> & MerchantColumns;
const versionOf = (v: Versioned) =>
  JSON.stringify([v.status, v.updated_at, v.merchant_name, v.merchant_origins, v.merchant_color, v.merchant_accent, v.merchant_logo]);

export async function findCheckout(db: Db, token: string): Promise<Checkout | undefined> {
  const [found] = await checkoutByToken(db, token);
  if (!found) return undefined;
  const { row: { lines, in_doubt, ...row }, merchant } = splitMerchant(found);
  return { row: transactionFromRow(row), lines: linesFrom(lines), merchant, version: versionOf(found), inDoubt: Boolean(in_doubt) };
}

/**
 * Changes whenever anything a checkout page shows can have changed: a transaction's
 * content is fixed once created, its status is not (updated_at moves with it), nor are the
 * merchant's name and allowed origins. Costs a fifth of findCheckout (measured 3 µs
 * against 13 µs on SQLite): it runs on every view of a payment page.
 */
export async function checkoutVersion(db: Db, token: string): Promise<string | undefined> {
  const [found] = await versionByToken(db, token);
  return found && versionOf(found);
}

export interface TransactionFilters extends PaymentListFilters {
  status?: TransactionStatus;
  order_id?: string;
  currency?: string;
  /** Created at or after this ISO instant. */
  created_from?: string;
  /** Created before this ISO instant. */
  created_before?: string;
  /** The dashboard's search box: a transaction matching any reading of the text (domain/transaction-search.ts). */
  search?: SearchTerms;
  /** Leave out the demo shop's and `npm run trigger`'s transactions (order ids `demo-…`, `trigger-…`). */
  hide_tools?: boolean;
  /** `status` as readers see it needs the clock: N past expiry reads as E. */
  now: string;
}

/** The order ids the demo shop (demo/shop.ts, demo.ts) and `npm run trigger` (devtools/trigger.ts) give their transactions. */
export const TOOL_ORDER_PREFIXES = ['demo-', 'trigger-'] as const;

type TxWhere = ExpressionBuilder<Tables, 'transactions'>;

/** A transaction matching any reading of a search text; every LIKE escaped, so the text is only ever text. */
export function matchesSearch(eb: TxWhere, environmentId: string, q: SearchTerms) {
  const contains = (column: ReturnType<typeof sql.ref>, text: string) => sql<boolean>`lower(${column}) like ${containsPattern(text.toLowerCase())} escape '\\'`;
  const either: Expression<SqlBool>[] = [contains(sql.ref('transactions.order_id'), q.text)];
  if (q.token) either.push(sql<boolean>`${sql.ref('transactions.token')} = ${q.token}`);
  if (q.last4) either.push(cardWhere(eb, { last4: q.last4 }));
  if (q.reference) {
    const reference = q.reference;
    either.push(eb('transactions.id', 'in', eb.selectFrom('sales').select('sales.transaction_id').where('sales.environment_id', '=', environmentId).where(referenceMatch('sales.id', reference))));
  }
  const line = q.statement && statementMatch(q.statement, { last4: 'sales.card_last4', amount: { units: 'sales.amount', currency: 'sales.currency' }, created: 'sales.created_at' });
  if (line) either.push(eb.exists(eb.selectFrom('sales').select('sales.id').whereRef('sales.transaction_id', '=', 'transactions.id').where(line)));
  if (q.email) {
    // The email the customer gave (receipts go there), or a client's.
    either.push(contains(sql.ref('transactions.customer_email'), q.email));
    // The customer of a transaction is a client whose wallet it names (sources pay, destinations are credited); the JSON is ours, written without spaces.
    const wallets = eb
      .selectFrom('wallets')
      .innerJoin('clients', 'clients.id', 'wallets.client_id')
      .select('wallets.id')
      .where('wallets.environment_id', '=', environmentId)
      .where(contains(sql.ref('clients.email'), q.email));
    const named = wallets.where((w) =>
      w.or([
        sql<boolean>`${sql.ref('transactions.source')} like ('%"wallet_id":"' || ${sql.ref('wallets.id')} || '"%')`,
        sql<boolean>`${sql.ref('transactions.destination')} like ('%"wallet_id":"' || ${sql.ref('wallets.id')} || '"%')`,
      ]),
    );
    // The first test does not depend on the row: both engines run it once, and when no
    // client's email matches (most searches) they skip the second, which runs per transaction
    // (on PostgreSQL, 70 of a 94 ms count at 10,000 payments; docs/performance-changelog.md).
    either.push(eb.and([eb.exists(wallets), eb.exists(named)]));
  }
  for (const { units, currencies } of q.amounts) {
    either.push(
      eb.and([
        eb('transactions.total_price', '=', units),
        'in' in currencies ? eb('transactions.currency', 'in', currencies.in) : eb('transactions.currency', 'not in', currencies.notIn),
      ]),
    );
  }
  return eb.or(either);
}

export async function listTransactions(db: Db, environmentId: string, f: TransactionFilters, page: Page) {
  let query = db.selectFrom('transactions').where('environment_id', '=', environmentId);
  if (f.order_id !== undefined) query = query.where('order_id', '=', f.order_id);
  if (f.currency !== undefined) query = query.where('currency', '=', f.currency);
  if (f.created_from !== undefined) query = query.where('created_at', '>=', f.created_from);
  if (f.created_before !== undefined) query = query.where('created_at', '<', f.created_before);
  const search = f.search;
  if (search) query = query.where((eb) => matchesSearch(eb, environmentId, search));
  if (f.hide_tools) {
    query = query.where((eb) => eb.or([eb('order_id', 'is', null), eb.and(TOOL_ORDER_PREFIXES.map((p) => eb('order_id', 'not like', `${p}%`)))]));
  }
  const status = f.status;
  if (status !== undefined) query = query.where((eb) => statusIs(eb, status, f.now));
  query = query.where((eb) => paymentFiltersWhere(eb, f, f.now));
  const { count, rows } = await countAndPage<TransactionRow>(query, page);
  const lines = rows.length
    ? await db
        .selectFrom('transaction_lines')
        .selectAll()
        .where(
          'transaction_id',
          'in',
          rows.map((r) => r.id),
        )
        .orderBy('position')
        .execute()
    : [];
  return {
    count,
    rows: rows.map((row) => ({ row: transactionFromRow(row), lines: lines.filter((l) => l.transaction_id === row.id) })),
  };
}
