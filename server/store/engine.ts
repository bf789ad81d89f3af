import { PostgresAdapter } from 'kysely';
import type { Db } from './db';

/** Whether `db` (or a transaction of it) runs on PostgreSQL: for the few statements whose SQL differs by engine. */
export const isPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter;
