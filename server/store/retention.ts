import type { ExpressionBuilder } from 'kysely';
import type { Db } from './db';
import type { Tables } from './schema';
import { inTransaction } from './db';

// What is deleted once it has served its purpose, in batches (a retention job's round
// deletes at most `batch` rows, so no statement holds locks for long and the runner goes
// again at once while there is more). Timestamps are ISO text on both engines, so they
// compare as strings. Settled gateway calls are purged by gateway-calls.ts and finished emails
// by mails.ts, their one writers.

/** Stored answers of finished requests older than `before` (the API keeps them 24 h). */
export async function purgeIdempotencyKeys(db: Db, before: Date, batch: number): Promise<number> {
  const old = db
    .selectFrom('idempotency_keys')
    .select(['environment_id', 'key'])
    .where('state', '=', 'done')
    .where('created_at', '<', before.toISOString())
    .limit(batch);
  const rows = await old.execute();
  if (!rows.length) return 0;
  const result = await db
    .deleteFrom('idempotency_keys')
    .where('state', '=', 'done')
    .where((eb) => eb.or(rows.map((r) => eb.and([eb('environment_id', '=', r.environment_id), eb('key', '=', r.key)]))))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Events created before `before`, with their deliveries and attempts, unless a delivery
 * is still pending (it may yet be made; a retry can make one pending again).
 */
export async function purgeOldEvents(db: Db, before: Date, batch: number): Promise<number> {
  return inTransaction(db, async (trx) => {
    const pending = (eb: ExpressionBuilder<Tables, 'events'>) =>
      eb.exists(
        eb
          .selectFrom('event_deliveries')
          .select('event_deliveries.id')
          .whereRef('event_deliveries.event_id', '=', 'events.id')
          .where('event_deliveries.delivery_status', '=', 'pending'),
      );
    const ids = (
      await trx
        .selectFrom('events')
        .select('id')
        .where('created_at', '<', before.toISOString())
        .where((eb) => eb.not(pending(eb)))
        .limit(batch)
        .execute()
    ).map((r) => r.id);
    if (!ids.length) return 0;
    await trx.deleteFrom('delivery_attempts').where('event_id', 'in', ids).execute();
    await trx.deleteFrom('event_deliveries').where('event_id', 'in', ids).execute();
    const result = await trx.deleteFrom('events').where('id', 'in', ids).executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

/** The API's request log: rows written before `before`. */
export async function purgeOldApiRequests(db: Db, before: Date, batch: number): Promise<number> {
  const ids = (await db.selectFrom('api_requests').select('id').where('created_at', '<', before.toISOString()).limit(batch).execute()).map((r) => r.id);
  if (!ids.length) return 0;
  const result = await db.deleteFrom('api_requests').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}
