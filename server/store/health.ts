import { sql } from 'kysely';
import type { Db } from './db';

/**
 * The migrations this database has applied (Kysely's own table). One small read that also
 * proves the database answers now: the readiness check's only query.
 */
export async function appliedMigrations(db: Db): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
  return rows.map((r) => r.name);
}
