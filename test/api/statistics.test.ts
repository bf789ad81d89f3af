import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { JOB_NAMES } from '../../server/jobs';
import { ENGINES } from './harness';
import { useOwnService } from './ledger';
import { paidTransaction, priced } from './pay';

// The statistics job (store/statistics.ts): on SQLite it writes the planner's statistics
// (sqlite_stat1) for the tables that have none, at start and hourly; on PostgreSQL, where
// autovacuum analyses, it does nothing and does not fail.

/** The tables sqlite_stat1 holds statistics of (none before a first analysis: the table does not exist). */
async function analysedTables(db: ReturnType<typeof useOwnService>['t']['service']['deps']['database']['db']): Promise<string[]> {
  const exists = await sql<{ n: number }>`select count(*) as n from sqlite_schema where name = 'sqlite_stat1'`.execute(db);
  if (!Number(exists.rows[0]!.n)) return [];
  return (await sql<{ tbl: string }>`select distinct tbl from sqlite_stat1`.execute(db)).rows.map((r) => r.tbl);
}

describe.each(ENGINES)('statistics job on %s', (engine) => {
  const svc = useOwnService(engine);

  it(engine === 'sqlite' ? 'analyses the tables a payment fills, and the reading connection sees it' : 'leaves the analysis to autovacuum', async () => {
    const { api, t } = svc;
    await paidTransaction(api, priced('EUR', 12.5));
    const db = t.service.deps.database.db;
    if (engine === 'sqlite') expect(await analysedTables(db)).not.toContain('sales');
    expect(await t.service.jobs.runOnce(JOB_NAMES.statistics)).toBe(0);
    if (engine === 'sqlite') expect(await analysedTables(db)).toEqual(expect.arrayContaining(['transactions', 'sales', 'sale_operations']));
  });
});
