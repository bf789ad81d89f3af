import type { ExpressionBuilder, QueryResult } from 'kysely';
import { isSourceSale, type SaleStatus } from '../domain/sales';
import { compiledOnce, insertWaitingNow } from './compiled';
import { jsonRows, rowsOfJson } from './engine';
import { forUpdate } from './locking';
import { type Db, inTransaction, type Tx } from './db';
import type { ProcessorFigures } from '../domain/processor-settlement';
import { figuresOf } from './processor-settlements';
import { settleCall } from './gateway-calls';
import { countAndPage, countOf, type Page } from './paging';
import type { AuthorizationRow, SaleOperationRow, SaleRow, Tables } from './schema';
import { type SourceOfSale, sourcesOfSales } from './source-sales';
import { answered, type Planned } from './together';

// Sales and authorizations after the payment: their rows. Every money movement is two
// database transactions around a gateway call made outside both: a reservation that starts
// with a conditional UPDATE (the condition is the action's rule, so it holds under any
// concurrency, on both engines and across processes) and a record of the answer, each
// settling the call's row exactly once. What a record writes, and which events it tells,
// is the use cases' (server/payments/: charge-record.ts, store-card.ts,
// authorization-removal.ts). An authorization's row is written by authorizations.ts alone.

export interface StoredSale {
  row: SaleRow;
  operations: SaleOperationRow[];
  /** The fees its balance transactions took so far, minor units. */
  fee: number;
  /** A source payment's sale: its sources, in the transaction's order. */
  sources?: SourceOfSale[];
  /** What the merchant's own processor settled for it, once read (store/processor-settlements.ts); absent: none read. */
  settlement?: ProcessorFigures;
  /** Its transaction's customer email, its receipts' recipient: null for none; absent where not read with the sale. */
  customerEmail?: string | null;
}

const OPERATION_COLUMNS = ['id', 'sale_id', 'kind', 'amount', 'gateway_reference', 'created_at', 'movement_id', 'reason', 'balance_checked_at'] as const;

/**
 * Sales with what is read in the same statement: their operations, the fees their balance
 * transactions took so far, their processor's figures once read (three fewer round trips
 * for each sale shown, or for a page of them), and whom a refund's receipt would go to
 * (none: a refund's record reads no transaction for it).
 */
function salesWithFigures(db: Db) {
  return db
    .selectFrom('sales')
    .leftJoin('sale_processor_settlements as settled', 'settled.sale_id', 'sales.id')
    .selectAll('sales')
    .select([
      'settled.sale_id as settled_sale',
      'settled.record as settled_record',
      'settled.currency as settled_currency',
      'settled.amount as settled_amount',
      'settled.fee as settled_fee',
      'settled.net as settled_net',
      'settled.available_on as settled_available_on',
      'settled.created_at as settled_created_at',
    ])
    .select((eb) => eb.selectFrom('balance_transactions').select((b) => b.fn.sum<number | string | null>('fee').as('fee')).whereRef('balance_transactions.sale_id', '=', 'sales.id').as('fees_so_far'))
    .select((eb) => eb.selectFrom('transactions').select('transactions.customer_email').whereRef('transactions.id', '=', 'sales.transaction_id').as('customer_email'))
    .select((eb) =>
      jsonRows(db, eb.selectFrom('sale_operations').select(OPERATION_COLUMNS).whereRef('sale_operations.sale_id', '=', 'sales.id').orderBy('sale_operations.id')).as('operations'),
    );
}

type SaleWithFigures = Awaited<ReturnType<ReturnType<typeof salesWithFigures>['execute']>>[number];

const byId = (a: SaleOperationRow, b: SaleOperationRow) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** A row of salesWithFigures as the sale it is, without a source payment's sources yet. */
function withFigures(found: SaleWithFigures): Omit<StoredSale, 'sources'> {
  const { settled_sale, settled_record, settled_currency, settled_amount, settled_fee, settled_net, settled_available_on, settled_created_at, fees_so_far, operations, customer_email, ...row } = found;
  const settlement =
    settled_sale === null
      ? undefined
      : figuresOf({ sale_id: settled_sale, record: settled_record!, currency: settled_currency!, amount: settled_amount!, fee: settled_fee!, net: settled_net!, available_on: settled_available_on, created_at: settled_created_at! });
  // In id order, as the statement aggregated them (sorted again: an aggregate's order is the engine's to keep).
  const ops = rowsOfJson<SaleOperationRow>(operations).sort(byId);
  return { row, operations: ops, fee: Number(fees_so_far ?? 0), customerEmail: customer_email ?? null, ...(settlement ? { settlement } : {}) };
}

const saleById = compiledOnce((db, id: string) => salesWithFigures(db).where('sales.id', '=', id));
const saleOfEnvironment = compiledOnce((db, id: string, environmentId: string) => salesWithFigures(db).where('sales.id', '=', id).where('sales.environment_id', '=', environmentId));
const lockedSale = compiledOnce((db, id: string) => forUpdate(db, salesWithFigures(db).where('sales.id', '=', id), 'sales'));

export async function getSale(db: Db, environmentId: string | null, id: string): Promise<StoredSale | undefined> {
  // Its transaction's operations waiting for the commit are part of it.
  await insertWaitingNow(db);
  const [found] = environmentId === null ? await saleById(db, id) : await saleOfEnvironment(db, id, environmentId);
  return found && storedSale(db, found);
}

/**
 * A sale as getSale reads it, its row locked until the transaction ends: an action's record
 * changes its amounts under this lock (store/sale-aggregate.ts) and tells the sale it
 * wrote without reading it again (issue 49). Only the sale's row is locked, not the
 * settlement the outer join may bring.
 */
export async function lockSale(trx: Tx, id: string): Promise<StoredSale | undefined> {
  await insertWaitingNow(trx);
  return answered(trx, lockSalePlanned(trx, id));
}

/** lockSale's statement, to send with others (together.ts, which writes the waiting rows first too). */
export function lockSalePlanned(trx: Tx, id: string): Planned<StoredSale | undefined> {
  return { query: lockedSale.compile(trx, id), read: ({ rows: [found] }: QueryResult<SaleWithFigures>) => found && storedSale(trx, found) };
}

/** A locked sale once its row was written and an operation added: what getSale would read now. */
export function withOperation(locked: StoredSale, row: SaleRow, operation: SaleOperationRow): StoredSale {
  return { ...locked, row, operations: [...locked.operations, operation].sort(byId) };
}

async function storedSale(db: Db, found: SaleWithFigures): Promise<StoredSale> {
  const sale = withFigures(found);
  const sources = isSourceSale(sale.row) ? ((await sourcesOfSales(db, [sale.row.id])).get(sale.row.id) ?? []) : undefined;
  return { ...sale, ...(sources ? { sources } : {}) };
}

export interface SaleFilters {
  status?: SaleStatus;
  transaction_id?: string;
  authorization_id?: string;
  currency?: string;
}

const FILTERS = ['transaction_id', 'authorization_id', 'currency', 'status'] as const satisfies readonly (keyof SaleFilters)[];
type Filter = (typeof FILTERS)[number];

/** The environment's sales matching `values` of the filters `named`, in order. */
const filtersOf = (environmentId: string, named: readonly Filter[], values: readonly string[]) => (eb: ExpressionBuilder<Tables, 'sales'>) =>
  eb.and([eb('sales.environment_id', '=', environmentId), ...named.map((name, i) => eb(`sales.${name}`, '=', values[i]!))]);

/**
 * A page of sales per set of filters given, compiled once for first pages and once for the
 * later ones (the API's sale list: mostly one transaction's, on one page). A first page has
 * no OFFSET, as pageOf (paging.ts) says why.
 */
const salesPages = new Map<string, (db: Db, environmentId: string, page: Page, values: string[]) => Promise<SaleWithFigures[]>>();

function salesPage(named: readonly Filter[], first: boolean) {
  const key = `${named.join()}${first ? '' : ' offset'}`;
  let page = salesPages.get(key);
  if (!page) {
    const newest = (db: Db, environmentId: string, values: string[]) => salesWithFigures(db).where(filtersOf(environmentId, named, values)).orderBy('sales.id', 'desc');
    if (first) {
      const firstPage = compiledOnce((db, environmentId: string, limit: number, ...values: string[]) => newest(db, environmentId, values).limit(limit));
      page = (db, environmentId, p, values) => firstPage(db, environmentId, p.page_size, ...values);
    } else {
      const laterPage = compiledOnce((db, environmentId: string, limit: number, offset: number, ...values: string[]) => newest(db, environmentId, values).limit(limit).offset(offset));
      page = (db, environmentId, p, values) => laterPage(db, environmentId, p.page_size, (p.page - 1) * p.page_size, ...values);
    }
    salesPages.set(key, page);
  }
  return page;
}

export async function listSales(db: Db, environmentId: string, f: SaleFilters, page: Page) {
  const named = FILTERS.filter((name) => f[name] !== undefined);
  const values = named.map((name) => f[name]!);
  const found = await salesPage(named, page.page === 1)(db, environmentId, page, values);
  const count = await countOf(
    page,
    found.length,
    async () => (await db.selectFrom('sales').where(filtersOf(environmentId, named, values)).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
  );
  const sales = found.map(withFigures);
  const sources = await sourcesOfSales(db, sales.map((s) => s.row).filter(isSourceSale).map((r) => r.id));
  const item = (s: (typeof sales)[number]): StoredSale => ({ ...s, ...(isSourceSale(s.row) ? { sources: sources.get(s.row.id) ?? [] } : {}) });
  return { count, rows: sales.map(item) };
}

const saleRowById = compiledOnce((db, id: string) => db.selectFrom('sales').selectAll().where('id', '=', id));
const saleRowOfEnvironment = compiledOnce((db, id: string, environmentId: string) => db.selectFrom('sales').selectAll().where('id', '=', id).where('environment_id', '=', environmentId));

/** A sale's row alone (of this environment's, when it names one). */
export async function saleRow(db: Db, id: string, environmentId?: string): Promise<SaleRow | undefined> {
  const [row] = environmentId === undefined ? await saleRowById(db, id) : await saleRowOfEnvironment(db, id, environmentId);
  return row;
}

/** A sale's row, locked until the transaction ends (FOR UPDATE; SQLite has one writer). */
export function lockSaleRow(trx: Tx, id: string): Promise<SaleRow | undefined> {
  return forUpdate(trx, trx.selectFrom('sales').selectAll().where('id', '=', id)).executeTakeFirst();
}

/** The payment's own gateway reference: the one the sale's first operation made. */
export async function paymentReference(db: Db, saleId: string): Promise<string | null> {
  const first = await db.selectFrom('sale_operations').select('gateway_reference').where('sale_id', '=', saleId).orderBy('id').limit(1).executeTakeFirst();
  return first?.gateway_reference ?? null;
}

/** A new authorization's row with no card yet: the one place it is spelled out (a store in doubt, a hosted save page). */
export function cardlessAuthorization(a: Pick<AuthorizationRow, 'id' | 'environment_id' | 'gateway_id' | 'gateway_account' | 'notify_url' | 'created_at' | 'updated_at'> & Partial<AuthorizationRow>): AuthorizationRow {
  return {
    transaction_id: null,
    status: 'pending',
    card_brand: null,
    card_last4: null,
    card_exp_month: null,
    card_exp_year: null,
    gateway_reference: '',
    ...a,
  };
}

export function getAuthorization(db: Db, environmentId: string | null, id: string) {
  let query = db.selectFrom('authorizations').selectAll().where('id', '=', id);
  if (environmentId !== null) query = query.where('environment_id', '=', environmentId);
  return query.executeTakeFirst();
}

export async function listAuthorizations(
  db: Db,
  environmentId: string,
  f: { status?: AuthorizationRow['status']; transaction_id?: string },
  page: Page,
) {
  let query = db.selectFrom('authorizations').where('environment_id', '=', environmentId);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.transaction_id !== undefined) query = query.where('transaction_id', '=', f.transaction_id);
  return countAndPage<AuthorizationRow>(query, page);
}

/** A call that moved nothing in our books (a store, a charge): only its state changes. */
export async function settleCallOnly(db: Db, callId: string, state: 'failed' | 'abandoned', now: Date): Promise<boolean> {
  return inTransaction(db, async (trx) => Boolean(await settleCall(trx, callId, ['pending'], state, now, { checkAt: state === 'abandoned' ? now : null })));
}

/** The authorization's status, its row locked until the transaction ends (FOR UPDATE; SQLite has one writer). */
export async function lockAuthorization(trx: Tx, environmentId: string, id: string) {
  return forUpdate(trx, trx.selectFrom('authorizations').select('status').where('environment_id', '=', environmentId).where('id', '=', id)).executeTakeFirst();
}
