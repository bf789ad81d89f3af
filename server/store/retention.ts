import type { Db } from './db';

// What is deleted once it has served its purpose, in batches (a retention job's round
// deletes at most `batch` rows, so no statement holds locks for long and the runner goes
// again at once while there is more). Timestamps are ISO text on both engines, so they
// compare as strings. Settled gateway calls are purged by gateway-calls.ts, old events by
// events.ts, finished emails by mails.ts and the API's request log by api-requests.ts,
// their one writers.

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
