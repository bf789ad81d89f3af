import { type RawBuilder, sql } from 'kysely';
import { customerKey, lifetimeValues, type Value } from '../domain/customers';
import { containsPattern } from '../domain/transaction-search';
import type { Db } from './db';
import { isPostgres } from './engine';
import { countAndPage, type Page } from './paging';
import { paysItsTransactionSql } from './paying-sale';
import type { AuthorizationRow, SubscriptionRow, TransactionRow } from './schema';
import { TOOL_ORDER_PREFIXES, transactionFromRow } from './transactions';

// The dashboard's customers: every API client of an environment, and every payer whose
// email (trimmed, in any capitals: domain/customers.ts customerKey) belongs to no client.
// A client's payments are those whose email is the client's. A payer is named by the id
// of their first payment, so no email ever goes into a URL.

export interface ListedCustomer {
  kind: 'client' | 'payer';
  /** The client's id, or the payer's first payment's id. */
  id: string;
  /** A client's name; null for a payer. */
  name: string | null;
  /** A client's email as given, a payer's as its key; null: a client without one. */
  email: string | null;
  payments: number;
  last_payment_at: string | null;
  value: Value[];
}

export interface CustomerFilters {
  /** Text anywhere in the name or the email. */
  q?: string;
  /** Leave out the demo shop's and `npm run trigger`'s payments, as the payments list does. */
  hide_tools: boolean;
}

/** Not made by the demo shop or `npm run trigger` (store/transactions.ts, their order ids). */
const notTool = sql`(order_id is null or (${sql.join(
  TOOL_ORDER_PREFIXES.map((p) => sql`order_id not like ${`${p}%`}`),
  sql` and `,
)}))`;

/**
 * Each payer's payments, by customer key: counted as they are made (`payers`, kept by
 * trigger, migration 132), a row per key and kind; the tools' rows left out, or added in.
 */
function payersOf(environmentId: string, hideTools: boolean) {
  if (hideTools) return sql`select customer_key, first_id, payments, last_at from payers where environment_id = ${environmentId} and tool = 0`;
  return sql`select customer_key, min(first_id) as first_id, sum(payments) as payments, max(last_at) as last_at
    from payers where environment_id = ${environmentId} group by customer_key`;
}

/**
 * A payment's email (`column`, as typed) has one of `keys` as its customer key. PostgreSQL
 * finds those payments by the index on the key (migration 134). SQLite's lower() is the
 * service's own and may not be indexed: there the environment's distinct emails (index of
 * migration 122) are keyed, each once, and the payments matched by the emails found.
 */
function emailKeyIn(db: Db, environmentId: string, keys: string[], column: 'customer_email' | 't.customer_email' = 'customer_email') {
  if (isPostgres(db)) return sql<boolean>`lower(trim(${sql.ref(column)})) in (${sql.join(keys)})`;
  return sql<boolean>`${sql.ref(column)} in (select customer_email from (select distinct customer_email from transactions where environment_id = ${environmentId} and customer_email is not null) typed
    where lower(trim(customer_email)) in (${sql.join(keys)}))`;
}

/**
 * Clients with their payments' figures, then payers who are no client; each row's activity
 * is its last payment, or a client's creation. Each email is lower-cased once, in its own
 * materialized step: compared pair by pair it cost a call per client and payer (SQLite's
 * lower() is JavaScript's, sqlite-functions.mjs). How many the search found is counted once,
 * apart: as a window (`count(*) over ()`) it tripled the cost of the page (docs/performance-changelog.md).
 */
function customersOf(environmentId: string, f: CustomerFilters): RawBuilder<unknown> {
  const search = f.q ? containsPattern(f.q.toLowerCase()) : undefined;
  const found = search ? sql`(lower(coalesce(name, '')) like ${search} escape '\\' or lower(coalesce(email, '')) like ${search} escape '\\')` : sql`1 = 1`;
  return sql`with payer_figures as materialized (${payersOf(environmentId, f.hide_tools)}),
    client_keys as materialized (select id, name, email, created_at, lower(trim(email)) as customer_key from clients where environment_id = ${environmentId}),
    customers as materialized (
      select 'client' as kind, c.id as id, c.name as name, c.email as email, coalesce(p.payments, 0) as payments, p.last_at as last_payment_at, coalesce(p.last_at, c.created_at) as activity
        from client_keys c left join payer_figures p on p.customer_key = c.customer_key
      union all
      select 'payer' as kind, p.first_id as id, null as name, p.customer_key as email, p.payments as payments, p.last_at as last_payment_at, p.last_at as activity
        from payer_figures p
        where p.customer_key not in (select customer_key from client_keys where customer_key is not null)
    )
    select *, (select count(*) from customers where ${found}) as total from customers where ${found}`;
}

interface CustomerRow {
  kind: 'client' | 'payer';
  id: string;
  name: string | null;
  email: string | null;
  payments: number | string;
  last_payment_at: string | null;
  /** How many customers the search found, on every row. */
  total: number | string;
}

/** One page of customers, newest activity first, each with its lifetime value. */
export async function listCustomers(db: Db, environmentId: string, f: CustomerFilters, page: Page): Promise<{ count: number; rows: ListedCustomer[] }> {
  const offset = (page.page - 1) * page.page_size;
  // OFFSET only past the first page, as pageOf (paging.ts) says why.
  const skipped = offset > 0 ? sql` offset ${offset}` : sql``;
  const { rows } = await sql<CustomerRow>`${customersOf(environmentId, f)} order by activity desc, id desc limit ${page.page_size}${skipped}`.execute(db);
  // Past the last page no row says how many there are: ask the first.
  if (!rows.length && page.page > 1) return { count: (await listCustomers(db, environmentId, f, { ...page, page: 1 })).count, rows: [] };
  const keys = rows.flatMap((r) => (r.email ? [customerKey(r.email)] : []));
  const values = await valuesOf(db, environmentId, keys, f.hide_tools);
  return {
    count: Number(rows[0]?.total ?? 0),
    rows: rows.map(({ total: _total, ...r }) => ({ ...r, payments: Number(r.payments), value: (r.email && values.get(customerKey(r.email))) || [] })),
  };
}

/** What each customer of `keys` paid and was refunded, per currency: their payments' sales that moved money. */
export async function valuesOf(db: Db, environmentId: string, keys: string[], hideTools = false): Promise<Map<string, Value[]>> {
  if (!keys.length) return new Map();
  const { rows } = await sql<{ customer_email: string; currency: string; captured: number | string; refunded: number | string }>`
    select t.customer_email as customer_email, s.currency as currency, sum(s.captured) as captured, sum(s.refunded) as refunded
    from transactions t join sales s on s.transaction_id = t.id
    where t.environment_id = ${environmentId} and ${emailKeyIn(db, environmentId, keys, 't.customer_email')}
      and ${paysItsTransactionSql('s')} and ${hideTools ? notTool : sql`1 = 1`}
    group by t.customer_email, s.currency`.execute(db);
  return lifetimeValues(rows.map((r) => ({ key: customerKey(r.customer_email), currency: r.currency, captured: Number(r.captured), refunded: Number(r.refunded) })));
}

/** The customer key of a payer's page: the email of that payment, if it is this environment's and has one. */
export async function payerKey(db: Db, environmentId: string, transactionId: string): Promise<string | undefined> {
  const row = await db.selectFrom('transactions').select('customer_email').where('environment_id', '=', environmentId).where('id', '=', transactionId).executeTakeFirst();
  const email = row?.customer_email?.trim();
  return email ? customerKey(email) : undefined;
}

/** The client whose email is this key, if any (the oldest, should two share it). */
export async function clientOfKey(db: Db, environmentId: string, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('clients').select('id').where('environment_id', '=', environmentId).where(sql<boolean>`lower(trim(email)) = ${key}`).orderBy('id').limit(1).executeTakeFirst();
  return row?.id;
}

/** Whom a customer's page is about: a payer's key, and a client's id too for a client. */
export interface CustomerRef {
  key: string | null;
  clientId: string | null;
}

/** A customer page's lists are this long at most (a page of payments is paged instead). */
const DETAIL_LIMIT = 100;

/** A payment of the customer's (emailKeyIn). */
const hasKey = (db: Db, environmentId: string, key: string | null) => (key === null ? sql<boolean>`1 = 0` : emailKeyIn(db, environmentId, [key]));

/** A page of the customer's payments, newest first. */
export async function customerPayments(db: Db, environmentId: string, key: string | null, page: Page) {
  const query = db.selectFrom('transactions').where('environment_id', '=', environmentId).where(hasKey(db, environmentId, key));
  const { count, rows } = await countAndPage<TransactionRow>(query, page);
  return { count, rows: rows.map((row) => ({ row: transactionFromRow(row) })) };
}

/** The customer's subscriptions: a client's own, and those signed up for with the customer's email. */
export function customerSubscriptions(db: Db, environmentId: string, who: CustomerRef): Promise<SubscriptionRow[]> {
  return db
    .selectFrom('subscriptions')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where((eb) => eb.or([who.clientId === null ? sql<boolean>`1 = 0` : eb('client_ref', '=', who.clientId), who.key === null ? sql<boolean>`1 = 0` : sql<boolean>`lower(trim(customer_email)) = ${who.key}`]))
    .orderBy('id', 'desc')
    .limit(DETAIL_LIMIT)
    .execute();
}

/** The customer's saved cards: stored on their payments or for their subscriptions. */
export function customerCards(db: Db, environmentId: string, who: CustomerRef, subscriptions: SubscriptionRow[]): Promise<AuthorizationRow[]> {
  const forSubscriptions = subscriptions.flatMap((s) => (s.authorization_id ? [s.authorization_id] : []));
  return db
    .selectFrom('authorizations')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where((eb) =>
      eb.or([
        eb('transaction_id', 'in', eb.selectFrom('transactions').select('id').where('environment_id', '=', environmentId).where(hasKey(db, environmentId, who.key))),
        forSubscriptions.length ? eb('id', 'in', forSubscriptions) : sql<boolean>`1 = 0`,
      ]),
    )
    .orderBy('id', 'desc')
    .limit(DETAIL_LIMIT)
    .execute();
}
