import { type CompiledQuery, sql } from 'kysely';
import type { Db } from '../../server/store/db';
import type { EngineName } from './harness';

/** A value as an SQL literal, for a plan's EXECUTE: the tests' own strings and numbers. */
const literal = (v: unknown): string => (typeof v === 'number' ? String(v) : `'${String(v).replaceAll("'", "''")}'`);

/**
 * The plan `engine` chooses for `query`, one line a step. On PostgreSQL as a prepared
 * statement run often gets it (the generic plan, which cannot use a parameter's value), with
 * sequential scans off: a test table is so small that they would win otherwise.
 */
export async function queryPlan(db: Db, engine: EngineName, query: CompiledQuery): Promise<string> {
  return db.connection().execute(async (c) => {
    if (engine === 'sqlite') {
      const { rows } = await c.executeQuery<{ detail: string }>({ ...query, sql: `explain query plan ${query.sql}` });
      return rows.map((r) => r.detail).join('\n');
    }
    await sql.raw(`prepare plan_of as ${query.sql}`).execute(c);
    await sql.raw('set plan_cache_mode = force_generic_plan; set enable_seqscan = off').execute(c);
    try {
      const args = query.parameters.length ? `(${query.parameters.map(literal).join(', ')})` : '';
      const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain execute plan_of${args}`).execute(c);
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await sql.raw('deallocate plan_of; reset plan_cache_mode; reset enable_seqscan').execute(c);
    }
  });
}
