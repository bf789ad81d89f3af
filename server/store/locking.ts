import type { Expression, ExpressionBuilder, SelectQueryBuilder, SqlBool } from 'kysely';
import type { Db } from './db';
import type { Tables } from './schema';
import { isPostgres } from './engine';

// The one place where claiming background work differs by engine, and the two ways every
// job claims: a batch at once for the queues (claimBatch: emails, webhook deliveries,
// subscriptions) and one row at a time for rows with their own condition (claimEach).
// PostgreSQL has many writers: candidates are selected FOR UPDATE SKIP LOCKED, so two
// processes never wait on, or take, the same rows. SQLite has one writer at a time, so the
// conditional UPDATE that follows every claim is already exclusive there and the clause
// does not exist.

// The builder's table types vary by caller.
function skipLocked<Q extends SelectQueryBuilder<any, any, any>>(db: Db, query: Q): Q {
  return isPostgres(db) ? (query.forUpdate().skipLocked() as Q) : query;
}

/**
 * Locks the selected rows until the transaction ends (`of`: only those of this table, as
 * under an outer join); on SQLite the one writer already holds everything.
 */
export function forUpdate<Q extends SelectQueryBuilder<any, any, any>>(db: Db, query: Q, of?: string): Q {
  return isPostgres(db) ? (query.forUpdate(of) as Q) : query;
}

/**
 * Claims rows one at a time, for the jobs whose rows each carry their own condition: the
 * candidates `due` selects (FOR UPDATE SKIP LOCKED on PostgreSQL), each taken by `take`, a
 * conditional UPDATE that only a row still due and free matches, so of two processes racing
 * for a row exactly one gets it. Resolves with what `take` took.
 */
export async function claimEach<R, T>(db: Db, due: SelectQueryBuilder<any, any, R>, take: (row: R) => Promise<T | undefined>): Promise<T[]> {
  const claimed: T[] = [];
  for (const row of await skipLocked(db, due).execute()) {
    const taken = await take(row);
    if (taken !== undefined) claimed.push(taken);
  }
  return claimed;
}

/** The tables whose rows the jobs claim in batches, each with its lease column. */
const LEASES = { mails: 'locked_until', event_deliveries: 'locked_until', subscriptions: 'claimed_until' } as const;

type Leased = keyof typeof LEASES;

export interface BatchClaim<T extends Leased> {
  table: T;
  // The builder's table types vary by caller.
  due: (eb: ExpressionBuilder<any, any>) => Expression<SqlBool>;
  order: string;
  now: Date;
  until: Date;
  claimant: string;
  limit: number;
}

/**
 * The UPDATE that claims a batch for one claimant until `until`: up to `limit` rows that
 * `due` describes and whose lease is free (oldest `order` first; FOR UPDATE SKIP LOCKED on
 * PostgreSQL), each taken only if still due and still free, so of two workers racing for a
 * row exactly one gets it; a dead worker's lease runs out. One statement, so a poll that
 * finds nothing is one round trip and needs no transaction (issue 49). For a statement
 * that reads more with the claimed rows (claimDueDeliveries); else claimBatch.
 */
export function claimUpdate<T extends Leased>(db: Db, c: BatchClaim<T>) {
  const at = c.now.toISOString();
  const lease: string = LEASES[c.table];
  const claimable = (eb: ExpressionBuilder<any, any>) => eb.and([c.due(eb), eb.or([eb(lease, 'is', null), eb(lease, '<=', at)])]);
  const candidates = skipLocked(db, db.selectFrom(c.table as Leased).select('id').where(claimable).orderBy(c.order as never).limit(c.limit));
  return db
    .updateTable(c.table as Leased)
    .set({ [lease]: c.until.toISOString(), claimed_by: c.claimant } as never)
    .where('id', 'in', candidates)
    .where(claimable);
}

/** Claims a batch (claimUpdate): the rows claimed, as the claim wrote them. */
export async function claimBatch<T extends Leased>(db: Db, c: BatchClaim<T>): Promise<Tables[T][]> {
  return (await claimUpdate(db, c).returningAll().execute()) as Tables[T][];
}
