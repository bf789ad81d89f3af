import { PostgresAdapter, type RawBuilder } from 'kysely';
import { jsonArrayFrom as postgresArray } from 'kysely/helpers/postgres';
import { jsonArrayFrom as sqliteArray } from 'kysely/helpers/sqlite';
import type { Db } from './db';

// The few statements whose SQL differs by engine.

/** Whether `db` (or a transaction of it) runs on PostgreSQL. */
export const isPostgres = (db: Db): boolean => db.getExecutor().adapter instanceof PostgresAdapter;

/**
 * The rows of `query` (explicit columns, in its order) as one JSON array column of the
 * statement around it: a row and its children read in one statement instead of two (issue
 * 49). Decoded by rowsOfJson.
 */
export const jsonRows = (db: Db, query: Parameters<typeof sqliteArray>[0]): RawBuilder<unknown> => (isPostgres(db) ? postgresArray(query) : sqliteArray(query));

/** A jsonRows column as read: JSON text on SQLite, parsed already by PostgreSQL's driver. */
export const rowsOfJson = <T>(column: unknown): T[] => (typeof column === 'string' ? JSON.parse(column) : column) as T[];
