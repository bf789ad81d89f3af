import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnvironment } from '../../server/store/environments';
import { type Database, inTransaction, openDatabase } from '../../server/store/db';
import { listSales } from '../../server/store/sales';
import { isDatabaseUnavailable } from '../../server/store/errors';
import { freshDatabase } from './database';

// Statements with parameters run as named prepared statements on PostgreSQL, each parsed
// and planned once per connection (server/store/pg-prepared.ts); not behind a transaction
// pooler; and a migration that changes a prepared statement's rows costs at most the one
// statement that finds out, inside a transaction, and nothing outside one.

describe.skipIf(!process.env.TEST_DATABASE_URL)('prepared statements on PostgreSQL', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let environmentId: string;
  let dataDir: string;
  const open = (pooler: 'none' | 'transaction' = 'none'): Database => openDatabase({ databaseUrl: fresh.url, dataDir, databasePooler: pooler });

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'checkout-prepared-'));
    fresh = await freshDatabase();
    const database = open();
    try {
      environmentId = (await createEnvironment(database.db, { name: 'Prepared shop', now: new Date() })).environment_id;
    } finally {
      await database.close();
    }
  });
  afterAll(async () => {
    await fresh?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The statements the connection running `tx` has prepared, by their text. */
  const preparedOn = async (tx: Parameters<Parameters<typeof inTransaction>[1]>[0]) =>
    (await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(tx)).rows.map((r) => r.statement);

  it('prepares a statement with parameters on its connection, once, and reuses it', async () => {
    const database = open();
    try {
      const found = await inTransaction(database.db, async (tx) => {
        // A text of its own (the alias), which no other file of the worker sends.
        const query = tx.selectFrom('environments').select('name as prepared_once').where('id', '=', environmentId);
        const first = await query.executeTakeFirst();
        const before = await preparedOn(tx);
        const results = [first, await query.executeTakeFirst(), await query.executeTakeFirst()];
        return { results, before, after: await preparedOn(tx), text: query.compile().sql };
      });
      expect(found.results).toEqual(Array(3).fill({ prepared_once: 'Prepared shop' }));
      // Named the second time it is sent (a text sent once stays unnamed), then reused.
      expect(found.before).not.toContain(found.text);
      expect(found.after.filter((s) => s === found.text)).toHaveLength(1);
    } finally {
      await database.close();
    }
  });

  it("a list's first page keeps one generic plan: it has no OFFSET, whose parameter made PostgreSQL plan it anew on most runs", async () => {
    const database = open();
    try {
      const plans = await inTransaction(database.db, async (tx) => {
        for (let i = 0; i < 8; i++) await listSales(tx, environmentId, { transaction_id: `tx_${i}` }, { page: 1, page_size: 10 });
        type Plans = { statement: string; generic_plans: string; custom_plans: string };
        return (await sql<Plans>`select statement, generic_plans, custom_plans from pg_prepared_statements where statement like '%from "sales"%' and statement like '%"sales"."transaction_id" = $%'`.execute(tx)).rows;
      });
      expect(plans).toHaveLength(1);
      expect(plans[0]!.statement).not.toMatch(/offset/i);
      // Planned for the values of its first runs (five, PostgreSQL's rule), then once for all.
      expect(Number(plans[0]!.generic_plans)).toBeGreaterThan(0);
      expect(Number(plans[0]!.custom_plans)).toBeLessThanOrEqual(5);
    } finally {
      await database.close();
    }
  });

  it('prepares nothing behind a transaction pooler, whose connections change between transactions', async () => {
    const database = open('transaction');
    try {
      const prepared = await inTransaction(database.db, async (tx) => {
        expect(await tx.selectFrom('environments').select('name').where('id', '=', environmentId).executeTakeFirst()).toEqual({ name: 'Prepared shop' });
        return preparedOn(tx);
      });
      expect(prepared).toEqual([]);
    } finally {
      await database.close();
    }
  });

  it('a migration that adds a column: outside a transaction the statement runs again at once; inside, the one statement fails and the next transaction prepares it anew', async () => {
    const database = open();
    const admin = new pg.Client({ connectionString: fresh.url });
    await admin.connect();
    const row = () => database.db.selectFrom('environments').selectAll().where('id', '=', environmentId).executeTakeFirstOrThrow();
    try {
      // Sent twice: named and prepared by then.
      await row();
      expect(await row()).not.toHaveProperty('prepared_probe');
      await admin.query('alter table environments add column prepared_probe integer default 7');
      // The pool's one idle connection, which prepared the statement before the change.
      expect(await row()).toMatchObject({ prepared_probe: 7 });

      // The statement prepared again after the first change, on the connection the transactions take.
      await inTransaction(database.db, async (tx) => {
        await tx.selectFrom('environments').selectAll().where('id', '=', environmentId).executeTakeFirstOrThrow();
        expect(await preparedOn(tx)).toContain(tx.selectFrom('environments').selectAll().where('id', '=', environmentId).compile().sql);
      });
      await admin.query('alter table environments add column prepared_probe_2 integer default 8');
      const inside = () => inTransaction(database.db, (tx) => tx.selectFrom('environments').selectAll().where('id', '=', environmentId).executeTakeFirstOrThrow());
      const refused = await inside().catch((err: unknown) => err);
      // Answered as a database that cannot answer now (503 and Retry-After), not as a fault.
      expect(refused).toMatchObject({ code: '0A000' });
      expect(isDatabaseUnavailable(refused)).toBe(true);
      expect(await inside()).toMatchObject({ prepared_probe: 7, prepared_probe_2: 8 });
    } finally {
      await admin.end();
      await database.close();
    }
  });
});
