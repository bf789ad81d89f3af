// What a payment leaves on disk and writes: `tsx test/bench/footprint.ts [--payments N]`
// on SQLite, and on PostgreSQL too with BENCH_DATABASE_URL (in a database of its own,
// dropped after). Each payment is what a merchant and a customer do: POST /v1/transaction/ with an
// Idempotency-Key and a notify_url, the payment page, the card form's POST; then one
// round of webhook delivery to a local receiver. Prints rows and bytes per payment by
// table, the SQLite file growth, and on PostgreSQL the transactions, row writes and WAL
// bytes per payment (docs/operations.md). Asserts nothing.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pino from 'pino';
import pg from 'pg';
import { loadConfig } from '../../server/config';
import { startService } from '../../server/service';
import { createEnvironment } from '../../server/store/environments';

const { values } = parseArgs({ options: { payments: { type: 'string', default: '1000' } } });
const N = Number(values.payments);
const TABLES = ['transactions', 'transaction_lines', 'sales', 'payment_attempts', 'gateway_calls', 'events', 'delivery_attempts', 'idempotency_keys', 'ledger_entries', 'sale_operations'];

const receiver = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
await new Promise((r) => receiver.once('listening', r));
const hook = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;

async function payments(url: string, auth: string, count: number, prefix: string) {
  for (let i = 0; i < count; i++) {
    const created = await fetch(`${url}/v1/transaction/`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': `${prefix}-${i}` },
      body: JSON.stringify({ currency: 'EUR', order_id: `o-${i}`, notify_url: hook, products: [{ amount: 2, product: { name: 'Coffee beans 250 g', price: 8.5 } }] }),
    });
    const { token } = (await created.json()) as { token: string };
    const html = await (await fetch(`${url}/pay/${token}/`)).text();
    const csrf = (JSON.parse(/<script[^>]*id="checkout-state"[^>]*>([\s\S]*?)<\/script>/.exec(html)![1]!) as { view: { csrf: string } }).view.csrf;
    const paid = await fetch(`${url}/pay/${token}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrf },
      body: JSON.stringify({ action: 'pay', gateway: '0190f5a0-0000-7000-8000-000000000001', fields: { card_number: '4242 4242 4242 4242', card_expiry: '12/34', card_cvc: '123', card_name: 'A' } }),
    });
    if (paid.status !== 200) throw new Error(`pay: ${paid.status}`);
  }
}

async function measure(engine: 'sqlite' | 'postgres', databaseUrl: string | null) {
  const dataDir = mkdtempSync(join(tmpdir(), 'checkout-footprint-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DEMO: 'false', LOG_LEVEL: 'silent', ALLOW_PRIVATE_NOTIFY_URLS: 'true', API_RATE_LIMIT: '100000', ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) });
  const service = await startService(config, pino({ level: 'silent' }), { background: false });
  const keys = await createEnvironment(service.deps.database.db, { name: 'Footprint', now: new Date() });
  const auth = `AppKeys ${keys.public_key}:${keys.secret_key}`;
  const client = databaseUrl ? new pg.Client({ connectionString: databaseUrl }) : null;
  await client?.connect();
  const counters = async () => {
    if (!client) return null;
    const { rows } = await client.query<{ lsn: string; commits: string; writes: string }>(
      `select pg_current_wal_lsn()::text as lsn,
              (select xact_commit from pg_stat_database where datname = current_database())::text as commits,
              (select coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) from pg_stat_user_tables where schemaname = 'public')::text as writes`,
    );
    return rows[0]!;
  };
  await payments(service.url, auth, 20, 'warm-up'); // warm-up, not counted below
  await service.jobs.runOnce('webhook-delivery');
  const rowsBefore = new Map<string, number>();
  for (const t of TABLES) rowsBefore.set(t, Number((await service.deps.database.db.selectFrom(t as 'events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n));
  const fileSize = () => ['checkout.db', 'checkout.db-wal'].map((f) => join(dataDir, f)).filter(existsSync).reduce((s, f) => s + statSync(f).size, 0);
  await new Promise((r) => setTimeout(r, 600)); // pg_stat counters are flushed at most every 500 ms
  const before = await counters();
  const sizeBefore = fileSize();
  await payments(service.url, auth, N, 'measured');
  while ((await service.jobs.runOnce('webhook-delivery')) > 0);
  await new Promise((r) => setTimeout(r, 600));
  const after = await counters();
  const lines: string[] = [`${engine}: ${N} payments (create with Idempotency-Key and notify_url, page, card POST, webhook delivered)`];
  for (const t of TABLES) {
    const rows = Number((await service.deps.database.db.selectFrom(t as 'events').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n) - rowsBefore.get(t)!;
    let bytes = '';
    if (client) {
      const { rows: r } = await client.query<{ total: string; avg: string | null }>(`select pg_total_relation_size($1)::text as total, (select avg(pg_column_size(x.*))::text from ${t} x) as avg`, [t]);
      bytes = `  avg row ${Math.round(Number(r[0]!.avg ?? 0))} B, table+indexes ${(Number(r[0]!.total) / 1e6).toFixed(2)} MB`;
    }
    lines.push(`  ${t.padEnd(18)} ${(rows / N).toFixed(2)} rows/payment${bytes}`);
  }
  if (engine === 'sqlite') {
    lines.push(`  file growth: ${((fileSize() - sizeBefore) / N).toFixed(0)} B/payment (checkout.db + WAL)`);
  }
  if (before && after) {
    const { rows } = await client!.query<{ d: string }>('select pg_wal_lsn_diff($1, $2)::text as d', [after.lsn, before.lsn]);
    lines.push(`  WAL: ${(Number(rows[0]!.d) / N).toFixed(0)} B/payment; commits: ${((Number(after.commits) - Number(before.commits)) / N).toFixed(1)}/payment (whole database); row writes: ${((Number(after.writes) - Number(before.writes)) / N).toFixed(1)}/payment`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  await client?.end();
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
}

await measure('sqlite', null);
if (process.env.BENCH_DATABASE_URL) {
  // A database of its own rather than a scratch schema: WAL and commit counters are per
  // database, and the service sets the connection's `options` itself.
  const base = process.env.BENCH_DATABASE_URL;
  const name = `checkout_footprint_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  try {
    await measure('postgres', base.replace(/\/[^/?]*(\?|$)/, `/${name}$1`));
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
receiver.close();
