import { sql } from 'kysely';
import { containsPattern } from '../domain/transaction-search';
import type { Db } from './db';
import type { ApiRequestRow } from './schema';

// The API's request log (migration 126): rows written in batches by the request log
// (http/request-log.ts), read newest first by the dashboard's Requests page, a page at a
// time from the last row shown (a cursor: the log grows by the second, so no count and no
// offset), and deleted by age by the retention job (purgeOldApiRequests).

/** Inserts a batch of finished requests in one statement. */
export async function insertApiRequests(db: Db, rows: readonly ApiRequestRow[]): Promise<void> {
  if (rows.length) await db.insertInto('api_requests').values([...rows]).execute();
}

/** The API's request log: rows written before `before`. */
export async function purgeOldApiRequests(db: Db, before: Date, batch: number): Promise<number> {
  const ids = (await db.selectFrom('api_requests').select('id').where('created_at', '<', before.toISOString()).limit(batch).execute()).map((r) => r.id);
  if (!ids.length) return 0;
  const result = await db.deleteFrom('api_requests').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export interface ApiRequestFilters {
  /** Statuses from `status[0]` to `status[1]`, both included: a class (400–499) or one code. */
  status?: readonly [number, number];
  method?: string;
  /** Text the path contains, case-insensitively; `%` and `_` are only text. */
  path?: string;
  request_id?: string;
  /** ISO moments: created at or after `since`, before `until`. */
  since?: string;
  until?: string;
}

/**
 * Up to `limit` rows of the environment matching `filters`, newest first, after the row
 * `before` (its id; one of another environment, or gone, starts from the newest), and
 * whether more follow.
 */
export async function listApiRequests(
  db: Db,
  environmentId: string,
  filters: ApiRequestFilters,
  page: { limit: number; before?: string },
): Promise<{ rows: ApiRequestRow[]; more: boolean }> {
  const from = page.before
    ? await db.selectFrom('api_requests').select(['created_at', 'id']).where('environment_id', '=', environmentId).where('id', '=', page.before).executeTakeFirst()
    : undefined;
  let q = db.selectFrom('api_requests').selectAll().where('environment_id', '=', environmentId);
  if (filters.status) q = q.where('status', '>=', filters.status[0]).where('status', '<=', filters.status[1]);
  if (filters.method) q = q.where('method', '=', filters.method);
  if (filters.path) q = q.where(sql<boolean>`lower(${sql.ref('path')}) like ${containsPattern(filters.path.toLowerCase())} escape '\\'`);
  if (filters.request_id) q = q.where('request_id', '=', filters.request_id);
  if (filters.since) q = q.where('created_at', '>=', filters.since);
  if (filters.until) q = q.where('created_at', '<', filters.until);
  if (from) q = q.where((eb) => eb.or([eb('created_at', '<', from.created_at), eb.and([eb('created_at', '=', from.created_at), eb('id', '<', from.id)])]));
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit + 1).execute();
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}
