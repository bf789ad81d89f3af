import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, type LogEvent, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { parseBalanceFilters, periodOf, storeFiltersOf } from '../../server/dashboard/balance-filters';
import { figureDays } from '../../server/dashboard/home-figures';
import { findObjects, searchEverything } from '../../server/dashboard/search-results';
import { parseTxFilters, storeFilters } from '../../server/dashboard/transaction-filters';
import { paymentReference } from '../../server/domain/payment-reference';
import { PROCESSOR_GATEWAY_IDS } from '../../server/payments/processors';
import { balanceOf } from '../../server/store/balance';
import { feesIn, listBalanceTransactionsIn, payoutsOnTheirWay, pendingByDay, processorFiguresIn, processorSalesIn } from '../../server/store/balance-overview';
import { listCustomers } from '../../server/store/customers';
import { attentionOf, quarterFigures } from '../../server/store/dashboard-figures';
import type { Db } from '../../server/store/db';
import { listDeliveries } from '../../server/store/delivery-list';
import { listEvents } from '../../server/store/event-list';
import { countTransactions, currenciesInUse } from '../../server/store/overview';
import { payoutSettingsOf } from '../../server/store/merchant-payouts';
import { oldestUnsentFile } from '../../server/store/payout-files';
import { listApiKeys } from '../../server/store/api-keys';
import { paymentFactsOf } from '../../server/store/payment-list';
import { paymentSummaryFacts } from '../../server/store/payment-summary';
import { paymentTimelineFacts } from '../../server/store/payment-timeline';
import { listSales } from '../../server/store/sales';
import type { Tables } from '../../server/store/schema';
import { defineFunctions } from '../../server/store/sqlite-functions.mjs';
import { listTransactions } from '../../server/store/transactions';

// The dashboard's pages' queries, in process, on a copy of a shop seeded by
// dashboard-seed.ts: each page's store calls run RUNS times, the minimum kept (the machine
// is shared: a minimum is what the work costs), with the slowest statement of each.
//   npx tsx test/bench/dashboard-queries.ts DIR [--stats=none|optimize|analyze] [--limit=N] [--plans] [--only=NAME,…]
//   npx tsx test/bench/dashboard-queries.ts DIR --pg=URL     (URL's search_path at the seeded schema)
// --stats: SQLite's statistics on the copy first: none (those the file has: none in a shop
// seeded before the statistics job), `PRAGMA optimize` as that job runs it
// (server/store/statistics.ts), or a full `ANALYZE`.
// --limit: the `analysis_limit` of --stats=optimize (0: none). --plans prints each statement's plan (EXPLAIN QUERY PLAN / EXPLAIN).

const RUNS = 7;
const args = process.argv.slice(2);
const dir = args[0]!;
const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const stats = flag('stats') ?? 'none';
const only = flag('only')?.split(',');
const pgUrl = flag('pg');
const plans = args.includes('--plans');
const limit = Number(flag('limit') ?? 0);

const statements: { sql: string; parameters: readonly unknown[]; ms: number }[] = [];
const log = (e: LogEvent) => {
  statements.push({ sql: e.query.sql, parameters: e.query.parameters, ms: e.queryDurationMillis });
};

let db: Db;
let close: () => Promise<void>;
let explain: (text: string, parameters: readonly unknown[]) => Promise<string>;
if (pgUrl) {
  const pool = new pg.Pool({ connectionString: pgUrl, max: 4 });
  db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), log });
  if (stats !== 'none') await sql`ANALYZE`.execute(db);
  explain = async (text, parameters) => (await pool.query(`EXPLAIN ANALYZE ${text}`, parameters as unknown[])).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
  close = () => db.destroy();
} else {
  const work = mkdtempSync(join(tmpdir(), 'dashboard-queries-'));
  copyFileSync(join(dir, 'checkout.db'), join(work, 'checkout.db'));
  const file = new SQLite(join(work, 'checkout.db'));
  defineFunctions(file);
  const started = performance.now();
  if (stats === 'optimize') file.exec(`PRAGMA analysis_limit = ${limit}; PRAGMA optimize = 0x10002`);
  if (stats === 'analyze') file.exec('ANALYZE');
  if (stats !== 'none') console.log(`statistics (${stats}): ${(performance.now() - started).toFixed(0)} ms; sqlite_stat1 rows: ${(file.prepare('select count(*) as n from sqlite_stat1').get() as { n: number }).n}`);
  db = new Kysely<Tables>({ dialect: new SqliteDialect({ database: file }), log });
  explain = async (text, parameters) =>
    (file.prepare(`EXPLAIN QUERY PLAN ${text}`).all(...(parameters as unknown[])) as { detail: string }[]).map((r) => r.detail).join('\n');
  close = async () => {
    await db.destroy();
    rmSync(work, { recursive: true });
  };
}

const { environmentId: env } = JSON.parse(readFileSync(join(dir, 'shop.json'), 'utf8')) as { environmentId: string };
const now = new Date();
const tz = 'UTC';
const page1 = { page: 1, page_size: 20 };
const tx = await db.selectFrom('transactions').where('environment_id', '=', env).where('order_id', 'like', 'order-2-%').select(['id', 'customer_email']).orderBy('id').execute();
const one = tx[Math.floor(tx.length / 2)]!;
const sale = await db.selectFrom('sales').where('transaction_id', '=', one.id).select(['id', 'amount', 'card_last4']).executeTakeFirstOrThrow();
const settled = Object.values(PROCESSOR_GATEWAY_IDS).flat();
const balance = parseBalanceFilters({}, now, tz).filters;

async function list(query: Record<string, string>) {
  const { rows } = await listTransactions(db, env, storeFilters(parseTxFilters(query).filters, now.toISOString(), tz), page1);
  await paymentFactsOf(db, env, rows.map((r) => r.row.id));
}

const PAGES: [string, () => Promise<unknown>][] = [
  ['home: count', () => countTransactions(db, env)],
  ['home: quarterFigures', () => quarterFigures(db, env, figureDays(now, tz).since)],
  ['home: attentionOf', () => attentionOf(db, env, now)],
  ['home: set-up gaps', () => Promise.all([currenciesInUse(db, env, now), payoutSettingsOf(db, env), oldestUnsentFile(db, env), listApiKeys(db, env)])],
  ['payments, first page', () => list({})],
  ['payments, status refunded in part', () => list({ status: 'partially_refunded' })],
  ['payments, page 50', () => list({ page: '50' })],
  ['payments, search by email', () => list({ q: one.customer_email! })],
  ['payments, search by reference', () => list({ q: paymentReference(sale.id) })],
  ['payments, search last4 + amount', () => list({ q: `${sale.card_last4} ${(sale.amount / 100).toFixed(2)}` })],
  ['global search by email', async () => searchEverything(db, env, one.customer_email!, tz, await findObjects(db, env, one.customer_email!))],
  [
    'a payment',
    async () => {
      const { rows } = await listSales(db, env, { transaction_id: one.id }, { page: 1, page_size: 100 });
      await paymentSummaryFacts(db, env, one.id, sale.id);
      await paymentTimelineFacts(db, env, one.id, rows.map((r) => r.row.id));
    },
  ],
  ['balance: balanceOf', () => balanceOf(db, env, now)],
  ['balance: pendingByDay', () => pendingByDay(db, env, now, tz)],
  ['balance: payoutsOnTheirWay', () => payoutsOnTheirWay(db, env, 20)],
  ['balance: feesIn', () => feesIn(db, env, periodOf(balance, tz))],
  ['balance: transactions', () => listBalanceTransactionsIn(db, env, storeFiltersOf(balance, tz), page1)],
  ['balance: processorSalesIn', () => processorSalesIn(db, env, settled, periodOf(balance, tz))],
  ['balance: processorFiguresIn', () => processorFiguresIn(db, env, settled, periodOf(balance, tz))],
  ['customers', () => listCustomers(db, env, { hide_tools: true }, page1)],
  ['events', () => listEvents(db, env, {}, page1)],
  ['webhook deliveries', () => listDeliveries(db, env, page1)],
];

for (const [name, run] of PAGES) {
  if (only && !only.some((o) => name.includes(o))) continue;
  await run();
  let best = Infinity;
  let slowest: (typeof statements)[number] | undefined;
  for (let i = 0; i < RUNS; i++) {
    statements.length = 0;
    const started = performance.now();
    await run();
    const ms = performance.now() - started;
    if (ms < best) {
      best = ms;
      slowest = [...statements].sort((a, b) => b.ms - a.ms)[0];
    }
  }
  const worst = slowest ? `; slowest statement ${slowest.ms.toFixed(1)} ms: ${slowest.sql.replace(/\s+/g, ' ').slice(0, 110)}` : '';
  console.log(`${name.padEnd(36)} ${best.toFixed(1).padStart(8)} ms (${statements.length} statements${worst})`);
  if (plans) {
    for (const s of statements) console.log(`  ${s.ms.toFixed(1)} ms ${s.sql.replace(/\s+/g, ' ').slice(0, 160)}\n    ${(await explain(s.sql, s.parameters)).replaceAll('\n', '\n    ')}`);
  }
}
await close();
