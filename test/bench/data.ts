import { sql } from 'kysely';
import { newToken, uuidv7 } from '../../server/domain/ids';
import { type Database, openDatabase } from '../../server/store/db';
import { createEnvironment, type NewKeys } from '../../server/store/environments';
import { migrate } from '../../server/store/migrations';
import type { StoredTransaction } from '../../server/store/transactions';
import { TEST_CARDS } from '../../server/domain/test-cards';
import { SANDBOX_CARD_ID } from '../../server/payments/sandbox';
import { payToken } from '../api/pay';

// What the measurements run on: a migrated database with one environment, transactions
// created through the API like a merchant's, and copies of them written straight into the
// tables when thousands are needed.

export interface Store {
  database: Database;
  keys: NewKeys;
  /** `Authorization` header value for the environment. */
  auth: string;
}

export async function openStore(engine: { dataDir: string; databaseUrl: string | null }, now = new Date()): Promise<Store> {
  const database = openDatabase(engine);
  await migrate(database);
  const keys = await createEnvironment(database.db, { name: 'Bench shop', now });
  // The API's per-environment limit (API_RATE_LIMIT, 100/s by default) would answer most of
  // a load run with 429: far above what any run reaches, the limiter still runs on each request.
  await database.db.updateTable('environments').set({ rate_limit: 1_000_000 }).where('id', '=', keys.environment_id).execute();
  return { database, keys, auth: `AppKeys ${keys.public_key}:${keys.secret_key}` };
}

/**
 * A typical checkout: `lines` products defined inline, EUR, first gateway preselected. Lean
 * lines, so that 1,000 of them fit the API's 100 kB body limit.
 */
export function transactionBody(lines: number, merchantOrigin = 'https://shop.example') {
  return {
    currency: 'EUR',
    order_id: `bench-${lines}`,
    gateway_selected: true,
    return_url: `${merchantOrigin}/return`,
    cancel_url: `${merchantOrigin}/cancel`,
    products: Array.from({ length: lines }, (_, i) => ({
      amount: (i % 3) + 1,
      product: { name: `Product ${i + 1}`, price: 12.5 + i },
    })),
  };
}

export interface CreatedTransaction {
  id: string;
  token: string;
  payment_url: string;
}

export async function createTransaction(baseUrl: string, auth: string, body: unknown): Promise<CreatedTransaction> {
  const res = await fetch(`${baseUrl}/v1/transaction/`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST /v1/transaction/ answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as CreatedTransaction;
}

/** The same transaction as a new one: fresh id, token and line ids. */
export function copyOf(template: StoredTransaction, now = Date.now()): StoredTransaction {
  const id = uuidv7(now);
  return {
    row: { ...template.row, id, token: newToken() },
    lines: template.lines.map((line) => ({ ...line, id: uuidv7(now), transaction_id: id })),
  };
}

async function insertRows(db: Database['db'], table: 'transactions' | 'transaction_lines', rows: object[]): Promise<void> {
  // Both engines cap bound parameters per statement (SQLite 32,766): stay under 30,000.
  const perStatement = Math.max(1, Math.floor(30_000 / Object.keys(rows[0] ?? {}).length));
  for (let i = 0; i < rows.length; i += perStatement) {
    await db.insertInto(table).values(rows.slice(i, i + perStatement) as never).execute();
  }
}

/** `count` copies of `template` straight into the tables, `batch` per database transaction. */
export async function seedTransactions(store: Store, template: StoredTransaction, count: number, batch = 1000): Promise<void> {
  const now = Date.now();
  for (let done = 0; done < count; done += batch) {
    const copies = Array.from({ length: Math.min(batch, count - done) }, () => copyOf(template, now));
    await store.database.db.transaction().execute(async (trx) => {
      await insertRows(trx, 'transactions', copies.map((c) => c.row));
      await insertRows(trx, 'transaction_lines', copies.flatMap((c) => c.lines));
    });
  }
  // Move the seeded pages from SQLite's write-ahead log into the database file, so every
  // row starts from the same state whatever the seeding left in the log.
  if (store.database.engine === 'sqlite') await sql`PRAGMA wal_checkpoint(TRUNCATE)`.execute(store.database.db);
}

export async function countTransactions(store: Store): Promise<number> {
  const row = await store.database.db
    .selectFrom('transactions')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Two EUR wallets of one client, the first holding 10,000,000.00 (a sale paid through the
 * checkout with the wallet as its destination): enough for any run of 0.01 transfers.
 */
export async function fundedWallets(baseUrl: string, auth: string): Promise<[string, string]> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${baseUrl}/v1${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`POST /v1${path} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { id: string; token: string };
  };
  const client = await post('/client/', { name: 'Bench seller', id_country: 'ES', id_number: '12345678Z' });
  const wallet = (n: number) => post('/wallet/', { wallet_id: `bench-${n}`, name: `Bench ${n}`, client_id: client.id, currency: 'EUR' });
  const [from, to] = [await wallet(1), await wallet(2)];
  const amount = 10_000_000;
  const sale = await post('/transaction/', {
    currency: 'EUR',
    products: [{ amount: 1, product: { name: 'Float', price: amount } }],
    destination: [{ wallet_id: from.id, amount }],
  });
  if ((await payToken(baseUrl, sale.token)) !== 200) throw new Error('paying the funding sale failed');
  return [from.id, to.id];
}

/** A card stored with the sandbox card gateway (an authorization to charge). */
export async function storedCard(baseUrl: string, auth: string): Promise<string> {
  const res = await fetch(`${baseUrl}/v1/authorization/`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ gateway: SANDBOX_CARD_ID, card: { number: TEST_CARDS.approved, expiry: '12/34', cvc: '123', name: 'Bench' } }),
  });
  if (res.status !== 201) throw new Error(`POST /v1/authorization/ answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

async function post<T>(baseUrl: string, auth: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}/v1${path}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST /v1${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** A page that saves a card (/pay/sav_…/): an authorization without a card; its URL. */
export async function saveCardPage(baseUrl: string, auth: string): Promise<string> {
  return (await post<{ url: string }>(baseUrl, auth, '/authorization/', { gateway: SANDBOX_CARD_ID })).url;
}

/** A subscription's sign-up page (/pay/sub_…/), a monthly plan with a trial; its URL. */
export async function signUpPage(baseUrl: string, auth: string, merchantOrigin = 'https://shop.example'): Promise<string> {
  const plan = await post<{ id: string }>(baseUrl, auth, '/plan/', { name: 'Coffee club', amount: 9.99, currency: 'EUR', interval: 'month', trial_days: 14 });
  const body = { plan: plan.id, subscription_id: 'bench-1', return_url: `${merchantOrigin}/welcome`, cancel_url: `${merchantOrigin}/later` };
  return (await post<{ payment_url: string }>(baseUrl, auth, '/subscription/', body)).payment_url;
}
