import { randomUUID } from 'node:crypto';
import { type CompiledQuery, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import type { Db } from '../../server/store/db';
import { MIN_ANALYSED_ROWS } from '../../server/store/statistics';
import { ENGINES } from './harness';
import { useOwnService } from './ledger';
import { paidTransaction, priced } from './pay';
import { queryPlan } from './query-plan';

// The statistics job (store/statistics.ts): on SQLite it writes the planner's statistics
// (sqlite_stat1) of the tables big enough for them, at start and hourly, and makes every
// connection read them; on PostgreSQL, where autovacuum analyses, it does nothing and does
// not fail. The plans are read through the service's reading connection (outside a
// transaction), the one the payment page and the dashboard read with.

/** The tables sqlite_stat1 holds statistics of (none before a first analysis: the table does not exist). */
async function analysedTables(db: Db): Promise<string[]> {
  const exists = await sql<{ n: number }>`select count(*) as n from sqlite_schema where name = 'sqlite_stat1'`.execute(db);
  if (!Number(exists.rows[0]!.n)) return [];
  return (await sql<{ tbl: string }>`select distinct tbl from sqlite_stat1`.execute(db)).rows.map((r) => r.tbl);
}

/** The payment page's lookup by token, joined with the merchant as `findCheckout`'s is. */
const byToken = (db: Db, token: string): CompiledQuery =>
  db
    .selectFrom('transactions')
    .innerJoin('environments', 'environments.id', 'transactions.environment_id')
    .select(['transactions.status', 'environments.mode'])
    .where('transactions.token', '=', token)
    .compile();

/**
 * The plan of `query` on the reading connection as its next statement would have it. An
 * EXPLAIN runs on the schema the connection last read, and a prepared one keeps its plan:
 * so a statement that reads the database goes first (it reads a changed schema again, as
 * every query does), and the EXPLAIN's text is new each time (the connection caches
 * statements by text).
 */
async function readerPlan(db: Db, query: CompiledQuery): Promise<string> {
  await sql`select count(*) from sqlite_schema`.execute(db);
  return queryPlan(db, 'sqlite', { ...query, sql: `${query.sql} /* ${randomUUID()} */` });
}

/** What a schema change does: every connection reads the schema again, statistics included (a restart would too). */
const rereadSchema = (db: Db) =>
  db.transaction().execute(async (tx) => {
    await sql`create view reread as select 1 as one`.execute(tx);
    await sql`drop view reread`.execute(tx);
  });

describe.each(ENGINES)('statistics job on %s', (engine) => {
  const svc = useOwnService(engine);

  if (engine === 'postgres') {
    it('leaves the analysis to autovacuum', async () => {
      await paidTransaction(svc.api, priced('EUR', 12.5));
      expect(await svc.t.service.jobs.runOnce(JOB_NAMES.statistics)).toBe(0);
    });
    return;
  }

  it('keeps no statistics of a table of a few rows, and drops those an earlier analysis took of one', async () => {
    const { api, t } = svc;
    const db = t.service.deps.database.db;
    const paid = await paidTransaction(api, priced('EUR', 12.5));
    // What the job did before: statistics of a one-row table, read by the reading connection.
    await sql`analyze transactions`.execute(db);
    await rereadSchema(db);
    for (let i = 0; i < 30; i++) expect((await api.post('/transaction/', priced('EUR', 1))).status).toBe(201);
    expect(await analysedTables(db)).toContain('transactions');
    // The planner took the table for one row and read all of it for a lookup by a unique column.
    expect(await readerPlan(db, byToken(db, paid.transaction.token))).toMatch(/^SCAN transactions$/m);

    expect(await t.service.jobs.runOnce(JOB_NAMES.statistics)).toBe(0);
    const analysed = await analysedTables(db);
    expect(analysed).not.toContain('transactions');
    expect(analysed).not.toContain('sales');
    expect(await readerPlan(db, byToken(db, paid.transaction.token))).toMatch(/^SEARCH transactions USING INDEX \S+ \(token=\?\)$/m);
  });

  it(`analyses a table of at least ${MIN_ANALYSED_ROWS} rows, and the reading connection plans with its statistics at once`, async () => {
    const db = svc.t.service.deps.database.db;
    await sql`create table statistics_probe (a integer, b integer)`.execute(db);
    await sql`create index statistics_probe_a on statistics_probe (a)`.execute(db);
    await sql`create index statistics_probe_b on statistics_probe (b)`.execute(db);
    // One value of a, every value of b distinct: b's index is the one to use.
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < ${2 * MIN_ANALYSED_ROWS}) insert into statistics_probe select 1, i from n`.execute(db);
    const probe = sql`select * from statistics_probe where a = 1 and b > ${2 * MIN_ANALYSED_ROWS - 10}`.compile(db);
    // Without statistics the planner takes an equality over a range.
    expect(await readerPlan(db, probe)).toBe('SEARCH statistics_probe USING INDEX statistics_probe_a (a=?)');

    expect(await svc.t.service.jobs.runOnce(JOB_NAMES.statistics)).toBe(0);
    expect(await analysedTables(db)).toContain('statistics_probe');
    expect(await readerPlan(db, probe)).toBe('SEARCH statistics_probe USING INDEX statistics_probe_b (b>?)');
  });
});
