import { PostgresAdapter, type SelectQueryBuilder } from 'kysely';
import type { Db } from './db';

// The one place where claiming background work differs by engine. PostgreSQL has many
// writers: candidates are selected FOR UPDATE SKIP LOCKED, so two processes never wait
// on, or take, the same rows. SQLite has one writer at a time, so the conditional UPDATE
// that follows every claim is already exclusive there and the clause does not exist.

export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

// The builder's table types vary by caller.
export function skipLocked<Q extends SelectQueryBuilder<any, any, any>>(db: Db, query: Q): Q {
  return isPostgres(db) ? (query.forUpdate().skipLocked() as Q) : query;
}

/** Locks the selected rows until the transaction ends; on SQLite the one writer already holds everything. */
export function forUpdate<Q extends SelectQueryBuilder<any, any, any>>(db: Db, query: Q): Q {
  return isPostgres(db) ? (query.forUpdate() as Q) : query;
}
