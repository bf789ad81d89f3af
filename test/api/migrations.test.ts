import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../server/store/db';
import { hashSecret, readKeyRow, verifyKey } from '../../server/store/api-keys';
import { createEnvironment } from '../../server/store/environments';
import { migrate, migrationNames } from '../../server/store/migrations';
import { SALE_STATUSES, saleStatus } from '../../server/domain/sales';
import { newSaleRow } from '../../server/store/new-sale';
import type { EnvironmentRow, SaleRow } from '../../server/store/schema';
import { createTransaction } from '../../server/transactions/create';
import { freshDatabase } from './database';
import { describeWithSqlite, ENGINES, transactionBody } from './harness';

// Upgrades of data written by an older version. SQLite only: its tables are rebuilt where
// PostgreSQL alters a column in place (and the test database there is shared, always at the latest version).

/** `fn` on a database of `engine` with no migration applied yet, removed after. */
async function withEmptyDatabase(engine: string, fn: (database: Database) => Promise<void>): Promise<void> {
  const pg = engine === 'postgres' ? await freshDatabase({ empty: true }) : undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'checkout-migrations-'));
  const database = openDatabase({ databaseUrl: pg?.url ?? null, dataDir });
  try {
    await fn(database);
  } finally {
    await database.close();
    await pg?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

describe.each(ENGINES)('every migration on %s', (engine) => {
  it('applies one at a time from an empty database, each from the schema its predecessor left', () =>
    withEmptyDatabase(engine, async (database) => {
      for (const name of migrationNames) expect(await migrate(database, name)).toEqual([name]);
      expect(await migrate(database)).toEqual([]);
    }));
});

describe.each(ENGINES)('a start on %s', (engine) => {
  it('applies only what is missing, finds nothing to do once all has run, and refuses a database a newer release migrated', () =>
    withEmptyDatabase(engine, async (database) => {
      const [last, ...earlier] = [...migrationNames].reverse();
      expect(await migrate(database, earlier[0])).toHaveLength(migrationNames.length - 1);
      expect(await migrate(database)).toEqual([last]);
      expect(await migrate(database)).toEqual([]);
      await sql`insert into kysely_migration (name, timestamp) values ('999_from_a_newer_release', ${new Date().toISOString()})`.execute(database.db);
      await expect(migrate(database)).rejects.toThrow(/corrupted migrations: previously executed migration 999_from_a_newer_release is missing/);
    }));
});

describe.each(ENGINES)('132 on %s', (engine) => {
  it('counts the payers of the payments made before it, then each payment as it is made', () =>
    withEmptyDatabase(engine, async (database) => {
      await migrate(database, migrationNames[migrationNames.indexOf('132_payers') - 1]!);
      const db = database.db;
      const { environment_id: env } = await createEnvironment(db, { name: 'Payers', now: new Date() });
      const pay = async (at: string, over: Record<string, unknown>) =>
        (await createTransaction(db, env, { ...transactionBody(over), gateway_selected: false, authorize: false }, new Date(at))).row.id;
      const first = await pay('2026-01-01T10:00:00.000Z', { customer_email: 'Ana@Shop.example' });
      await pay('2026-01-03T10:00:00.000Z', { customer_email: '  ana@shop.EXAMPLE ' });
      await pay('2026-01-02T10:00:00.000Z', { customer_email: 'ana@shop.example', order_id: 'demo-1' });
      await pay('2026-01-02T10:00:00.000Z', { customer_email: '   ' });
      await pay('2026-01-02T10:00:00.000Z', {});
      expect(await migrate(database)).toContain('132_payers');
      const payers = () => db.selectFrom('payers').select(['customer_key', 'tool', 'first_id', 'payments', 'last_at']).where('environment_id', '=', env).orderBy('tool').orderBy('customer_key').execute();
      expect(await payers()).toEqual([
        { customer_key: 'ana@shop.example', tool: 0, first_id: first, payments: 2, last_at: '2026-01-03T10:00:00.000Z' },
        { customer_key: 'ana@shop.example', tool: 1, first_id: expect.any(String), payments: 1, last_at: '2026-01-02T10:00:00.000Z' },
      ]);
      // Made after it: counted by the trigger, an earlier time keeping the later last payment.
      await pay('2026-01-02T12:00:00.000Z', { customer_email: 'ANA@shop.example' });
      await pay('2026-01-04T10:00:00.000Z', { customer_email: 'bo@shop.example', order_id: 'trigger-9' });
      await pay('2026-01-05T10:00:00.000Z', { customer_email: '' });
      const bo = await pay('2026-01-05T10:00:00.000Z', { customer_email: 'bo@shop.example' });
      expect(await payers()).toEqual([
        { customer_key: 'ana@shop.example', tool: 0, first_id: first, payments: 3, last_at: '2026-01-03T10:00:00.000Z' },
        { customer_key: 'bo@shop.example', tool: 0, first_id: bo, payments: 1, last_at: '2026-01-05T10:00:00.000Z' },
        { customer_key: 'ana@shop.example', tool: 1, first_id: expect.any(String), payments: 1, last_at: '2026-01-02T10:00:00.000Z' },
        { customer_key: 'bo@shop.example', tool: 1, first_id: expect.any(String), payments: 1, last_at: '2026-01-04T10:00:00.000Z' },
      ]);
    }));
});

describe.each(ENGINES)('136 on %s', (engine) => {
  it('gives each attempt made before it its delivery\'s endpoint (none for a notify_url\'s)', () =>
    withEmptyDatabase(engine, async (database) => {
      await migrate(database, migrationNames[migrationNames.indexOf('136_attempt_endpoint') - 1]!);
      // Rows as the version before wrote them: an attempt without its endpoint.
      const db = database.db as unknown as import('kysely').Kysely<any>;
      const at = '2026-03-02T09:00:00.000Z';
      const { environment_id: env } = await createEnvironment(database.db, { name: 'Attempts', now: new Date(at) });
      await db.insertInto('events').values({ id: 'e1', environment_id: env, type: 'product.created', object_id: 'p1', notify_url: 'https://shop.example/n', payload: '{}', created_at: at }).execute();
      const delivery = { event_id: 'e1', environment_id: env, delivery_status: 'failed', attempt_count: 1, created_at: at };
      await db.insertInto('event_deliveries').values({ ...delivery, id: 'd1', endpoint_id: null, url: 'https://shop.example/n' }).execute();
      await db.insertInto('event_deliveries').values({ ...delivery, id: 'd2', endpoint_id: 'we1', url: 'https://hooks.example/in' }).execute();
      const attempt = { event_id: 'e1', attempt: 1, result: 'failed', status_code: 500, error: null, response_body: 'no', duration_ms: 5, created_at: at };
      await db.insertInto('delivery_attempts').values({ ...attempt, id: 'a1', delivery_id: 'd1' }).execute();
      await db.insertInto('delivery_attempts').values({ ...attempt, id: 'a2', delivery_id: 'd2' }).execute();
      expect(await migrate(database, '136_attempt_endpoint')).toEqual(['136_attempt_endpoint']);
      expect(await db.selectFrom('delivery_attempts').select(['id', 'endpoint_id']).orderBy('id').execute()).toEqual([
        { id: 'a1', endpoint_id: null },
        { id: 'a2', endpoint_id: 'we1' },
      ]);
    }));
});

describe.each(ENGINES)('144 on %s', (engine) => {
  it('marks dealt with the operations in the balance already and those that move no money; leaves the rest to the balance job', () =>
    withEmptyDatabase(engine, async (database) => {
      await migrate(database, '143_sandbox_sessions');
      // Rows as the version before wrote them: operations without the mark.
      const db = database.db as unknown as import('kysely').Kysely<any>;
      const at = '2026-11-02T09:00:00.000Z';
      const { environment_id: env } = await createEnvironment(database.db, { name: 'Balance', now: new Date(at) });
      const sale = { environment_id: env, created_at: at, updated_at: at, gateway_id: 'g', currency: 'EUR', amount: 100, held: 0, captured: 100, refunded: 0, voided: 0 };
      await db.insertInto('sales').values([{ ...sale, id: 's1' }, { ...sale, id: 's2' }]).execute();
      const op = (id: string, sale_id: string, kind: string) => ({ id, sale_id, kind, amount: 100, created_at: `2026-11-02T09:00:0${id.at(-1)}.000Z` });
      await db.insertInto('sale_operations').values([op('o1', 's1', 'authorize'), op('o2', 's1', 'capture'), op('o3', 's1', 'refund'), op('o4', 's2', 'charge'), op('o5', 's2', 'void')]).execute();
      const bt = { environment_id: env, type: 'charge', sale_id: 's1', currency: 'EUR', amount: 100, fee: 0, net: 100, available_on: at, created_at: at };
      await db.insertInto('balance_transactions').values({ ...bt, id: 'b2', operation_id: 'o2' }).execute();
      expect(await migrate(database, '144_balance_checked')).toEqual(['144_balance_checked']);
      expect(await db.selectFrom('sale_operations').select(['id', 'balance_checked_at']).orderBy('id').execute()).toEqual([
        { id: 'o1', balance_checked_at: '2026-11-02T09:00:01.000Z' },
        { id: 'o2', balance_checked_at: '2026-11-02T09:00:02.000Z' },
        { id: 'o3', balance_checked_at: null },
        { id: 'o4', balance_checked_at: null },
        { id: 'o5', balance_checked_at: '2026-11-02T09:00:05.000Z' },
      ]);
    }));
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('status checks on postgres', () => {
  it('refuse a status the code does not know: the checks exist, and one refuses a bad update', async () => {
    const pg = await freshDatabase({ empty: true });
    const database = openDatabase({ databaseUrl: pg.url, dataDir: tmpdir() });
    try {
      await migrate(database);
      const { rows } = await sql<{ name: string }>`select conname as name from pg_constraint where contype = 'c' and conname like '%_check'`.execute(database.db);
      expect(rows.map((r) => r.name)).toEqual(expect.arrayContaining(['transactions_status_check', 'gateway_calls_state_check', 'authorizations_status_check', 'subscriptions_status_check']));
      const now = new Date().toISOString();
      const { environment_id } = await createEnvironment(database.db, { name: 'Checks', now: new Date() });
      const card = { id: 'auth-1', environment_id, transaction_id: null, gateway_id: 'g', card_brand: null, card_last4: null, card_exp_month: null, card_exp_year: null, gateway_reference: 'r', notify_url: null, created_at: now, updated_at: now };
      await database.db.insertInto('authorizations').values({ ...card, status: 'active' }).execute();
      await expect(database.db.updateTable('authorizations').set({ status: 'stolen' as never }).where('id', '=', 'auth-1').execute()).rejects.toThrow(/authorizations_status_check/);
      expect((await database.db.selectFrom('authorizations').select('status').executeTakeFirstOrThrow()).status).toBe('active');
    } finally {
      await database.close();
      await pg.drop();
    }
  });
});

describeWithSqlite('migrations on sqlite', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it('009 keeps every product and lets a product have no currency', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkout-migrations-'));
    dirs.push(dataDir);
    const database = openDatabase({ databaseUrl: null, dataDir });
    try {
      expect(await migrate(database, '007_wallets')).toContain('007_wallets');
      const db = database.db;
      const at = new Date().toISOString();
      await db
        .insertInto('environments')
        // An environment as 007 knew it: no `mode` yet (082).
        .values({ id: 'env', name: 'Shop', public_key: 'pk_migration', secret_hash: 'h', webhook_secret: 'w', allowed_origins: '[]', is_demo: 0, created_at: at } as EnvironmentRow)
        .execute();
      const mug = { id: 'p1', environment_id: 'env', created_at: at, updated_at: at, product_id: 'sku', name: 'Mug', description: 'Blue', price: 1234, currency: 'EUR', enabled: 1 };
      await db.insertInto('products').values(mug).execute();
      await expect(db.insertInto('products').values({ ...mug, id: 'p0', currency: null }).execute()).rejects.toThrow(/NOT NULL/);

      expect(await migrate(database, '009_product_currency_optional')).toEqual(['008_source_charges', '009_product_currency_optional']);
      expect(await db.selectFrom('products').selectAll().execute()).toEqual([mug]);
      await db.insertInto('products').values({ ...mug, id: 'p2', currency: null }).execute();
      expect((await db.selectFrom('products').select('currency').where('id', '=', 'p2').executeTakeFirst())?.currency).toBeNull();
      // Still STRICT, still indexed, still tied to its environment.
      const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where tbl_name = 'products'`.execute(db);
      expect(rows.map((r) => r.sql).join('\n')).toMatch(/strict[\s\S]*products_env_id/i);
      await expect(db.insertInto('products').values({ ...mug, id: 'p3', environment_id: 'nowhere' }).execute()).rejects.toThrow(/FOREIGN KEY/);
    } finally {
      await database.close();
    }
  });

  it('020 moves the amount of a capture whose call is still pending back to in flight, and leaves settled ones', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkout-migrations-'));
    dirs.push(dataDir);
    const database = openDatabase({ databaseUrl: null, dataDir });
    try {
      const last = migrationNames[migrationNames.indexOf('020_sale_amounts_in_flight') - 1]!;
      await migrate(database, last);
      const db = database.db as unknown as import('kysely').Kysely<any>;
      const at = new Date().toISOString();
      await db
        .insertInto('environments')
        // An environment as 007 knew it: no `mode` yet (082).
        .values({ id: 'env', name: 'Shop', public_key: 'pk_migration', secret_hash: 'h', webhook_secret: 'w', allowed_origins: '[]', is_demo: 0, created_at: at } as EnvironmentRow)
        .execute();
      // Before 020 a reserved capture of 60 had already moved 60 from held to captured (s1);
      // a refund of 10 the gateway confirmed is done (s2).
      const sale = { environment_id: 'env', gateway_id: 'g', currency: 'EUR', amount: 100, voided: 0, created_at: at, updated_at: at };
      await db.insertInto('sales').values({ ...sale, id: 's1', held: 40, captured: 60, refunded: 0 }).execute();
      await db.insertInto('sales').values({ ...sale, id: 's2', held: 0, captured: 100, refunded: 10 }).execute();
      const call = { environment_id: 'env', gateway_id: 'g', currency: 'EUR', request: '{}', checks: 0, created_at: at, updated_at: at };
      await db.insertInto('gateway_calls').values({ ...call, id: 'c1', reference: 'gc_c1', subject_id: 's1', kind: 'capture', state: 'pending', amount: 60 }).execute();
      await db.insertInto('gateway_calls').values({ ...call, id: 'c2', reference: 'gc_c2', subject_id: 's2', kind: 'refund', state: 'succeeded', amount: 10 }).execute();

      expect(await migrate(database, '020_sale_amounts_in_flight')).toContain('020_sale_amounts_in_flight');
      const amounts = await db.selectFrom('sales').select(['id', 'held', 'capturing', 'captured', 'refunding', 'refunded']).orderBy('id').execute();
      expect(amounts).toEqual([
        { id: 's1', held: 40, capturing: 60, captured: 0, refunding: 0, refunded: 0 },
        { id: 's2', held: 0, capturing: 0, captured: 100, refunding: 0, refunded: 10 },
      ]);
    } finally {
      await database.close();
    }
  });

  it('031 makes every environment\'s key pair its first API key, and the pair keeps working', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkout-migrations-'));
    dirs.push(dataDir);
    const database = openDatabase({ databaseUrl: null, dataDir });
    try {
      await migrate(database, '030_dashboard_accounts');
      const db = database.db;
      const at = new Date().toISOString();
      const secret = 'sk_before_the_migration';
      await db
        .insertInto('environments')
        // An environment as 030 knew it: no `mode` yet (082).
        .values({ id: 'env', name: 'Shop', public_key: 'pk_before', secret_hash: hashSecret(secret).toString('hex'), webhook_secret: 'w', allowed_origins: '[]', is_demo: 0, created_at: at } as EnvironmentRow)
        .execute();
      expect(await migrate(database)).toContain('031_api_keys');
      expect((verifyKey(await readKeyRow(db, 'pk_before'), secret, new Date()))?.id).toBe('env');
      expect(verifyKey(await readKeyRow(db, 'pk_before'), 'sk_wrong', new Date())).toBeNull();
      expect(await db.selectFrom('api_keys').select(['id', 'environment_id', 'label', 'public_key']).execute()).toEqual([
        { id: 'env', environment_id: 'env', label: 'Default', public_key: 'pk_before' },
      ]);
    } finally {
      await database.close();
    }
  });
  it('050 keeps every event, makes its notify_url delivery a delivery row with its attempts, and lets an event have no notify_url', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkout-migrations-'));
    dirs.push(dataDir);
    const database = openDatabase({ databaseUrl: null, dataDir });
    try {
      await migrate(database, migrationNames[migrationNames.indexOf('050_event_deliveries') - 1]!);
      const db = database.db as unknown as import('kysely').Kysely<any>;
      const at = new Date().toISOString();
      await db
        .insertInto('environments')
        // An environment as 007 knew it: no `mode` yet (082).
        .values({ id: 'env', name: 'Shop', public_key: 'pk_migration', secret_hash: 'h', webhook_secret: 'w', allowed_origins: '[]', is_demo: 0, created_at: at } as EnvironmentRow)
        .execute();
      const event = { environment_id: 'env', type: 'transaction.paid', object_id: 'tx', notify_url: 'https://shop.example/h', payload: '{}', locked_until: null, claimed_by: null, created_at: at };
      await db.insertInto('events').values({ ...event, id: 'e1', delivery_status: 'delivered', attempt_count: 2, next_attempt_at: null, delivered_at: at }).execute();
      await db.insertInto('events').values({ ...event, id: 'e2', delivery_status: 'pending', attempt_count: 0, next_attempt_at: at, delivered_at: null }).execute();
      const attempt = { event_id: 'e1', status_code: 500, error: null, response_body: 'no', duration_ms: 5, created_at: at };
      await db.insertInto('delivery_attempts').values({ ...attempt, id: 'a1', attempt: 1, result: 'failed' }).execute();
      await db.insertInto('delivery_attempts').values({ ...attempt, id: 'a2', attempt: 2, result: 'delivered', status_code: 200 }).execute();

      expect(await migrate(database)).toContain('050_event_deliveries');
      expect(await db.selectFrom('events').select(['id', 'notify_url']).orderBy('id').execute()).toEqual([
        { id: 'e1', notify_url: 'https://shop.example/h' },
        { id: 'e2', notify_url: 'https://shop.example/h' },
      ]);
      expect(await db.selectFrom('event_deliveries').select(['id', 'event_id', 'endpoint_id', 'url', 'delivery_status', 'attempt_count']).orderBy('id').execute()).toEqual([
        { id: 'e1', event_id: 'e1', endpoint_id: null, url: 'https://shop.example/h', delivery_status: 'delivered', attempt_count: 2 },
        { id: 'e2', event_id: 'e2', endpoint_id: null, url: 'https://shop.example/h', delivery_status: 'pending', attempt_count: 0 },
      ]);
      expect(await db.selectFrom('delivery_attempts').select(['id', 'delivery_id', 'event_id', 'result']).orderBy('id').execute()).toEqual([
        { id: 'a1', delivery_id: 'e1', event_id: 'e1', result: 'failed' },
        { id: 'a2', delivery_id: 'e1', event_id: 'e1', result: 'delivered' },
      ]);
      await db.insertInto('events').values({ id: 'e3', environment_id: 'env', type: 'sale.created', object_id: 's', notify_url: null, payload: '{}', created_at: at }).execute();
      // Still STRICT and tied together: a delivery of no event is refused.
      const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where tbl_name in ('events', 'delivery_attempts', 'event_deliveries')`.execute(db);
      expect(rows.map((r) => r.sql).join('\n')).not.toMatch(/_new/);
      await expect(
        db.insertInto('event_deliveries').values({ id: 'd9', event_id: 'nowhere', environment_id: 'env', url: 'u', delivery_status: 'pending', attempt_count: 0, created_at: at }).execute(),
      ).rejects.toThrow(/FOREIGN KEY/);
    } finally {
      await database.close();
    }
  });
  it('115 gives every sale the status its amounts give (domain/sales.ts saleStatus)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'checkout-migrations-'));
    dirs.push(dataDir);
    const database = openDatabase({ databaseUrl: null, dataDir });
    try {
      await migrate(database, migrationNames[migrationNames.indexOf('115_sale_status') - 1]!);
      const db = database.db as unknown as import('kysely').Kysely<any>;
      const at = new Date().toISOString();
      const env = (await createEnvironment(database.db, { name: 'Shop', now: new Date() })).environment_id;
      // One sale for each status, and one for each rule that an earlier one shadows.
      const amounts: Partial<SaleRow>[] = [
        { pending: 1, held: 1000 },
        { failure: 'not_processed' },
        { failure: 'declined' },
        { failure: 'authentication_required' },
        { held: 1000 },
        { held: 400, capturing: 200, captured: 400 },
        { voiding: 1000 },
        { voided: 1000 },
        { captured: 1000 },
        { captured: 600, voided: 400 },
        { captured: 1000, refunded: 300, refunding: 100 },
        { captured: 1000, refunded: 1000 },
        {},
      ];
      const rows = amounts.map((a, i) => {
        // Neither the status nor the gateway's account existed yet (migrations 115, 138).
        const { status: _computed, gateway_account: _later, ...row } = newSaleRow({ id: `s${String(i).padStart(2, '0')}`, environment_id: env, gateway_id: 'g', gateway_account: null, currency: 'EUR', amount: 1000, notify_url: null, created_at: at, updated_at: at, ...a });
        return row;
      });
      await db.insertInto('sales').values(rows).execute();
      expect(await migrate(database)).toContain('115_sale_status');
      const stored = await db.selectFrom('sales').select(['id', 'status']).orderBy('id').execute();
      expect(stored).toEqual(rows.map((r) => ({ id: r.id, status: saleStatus(r) })));
      expect(new Set(stored.map((r: { status: string }) => r.status))).toEqual(new Set(SALE_STATUSES));
    } finally {
      await database.close();
    }
  });
});
