import type { Db } from './db';

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'mismatch' }
  | { kind: 'in_flight' };

const TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still "running" after this long belongs to a process that died mid-request. A
 * request that calls gateways may legitimately run longer: its route adds the claim of
 * each call it can make (see http/route.ts).
 */
export const KEY_ABANDONED_MS = 60 * 1000;

/**
 * Claims an Idempotency-Key for a request. The primary key (environment, key) makes
 * concurrent claims race in the database: exactly one inserts, the others see its row.
 */
export async function claimKey(
  db: Db,
  input: { environmentId: string; key: string; requestHash: string; now: Date; abandonedAfterMs?: number },
): Promise<Claim> {
  const { environmentId, key, requestHash, now, abandonedAfterMs = KEY_ABANDONED_MS } = input;
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({
      environment_id: environmentId,
      key,
      request_hash: requestHash,
      state: 'running',
      status_code: null,
      response_body: null,
      created_at: now.toISOString(),
    })
    .onConflict((oc) => oc.columns(['environment_id', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed' };

  const row = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return claimKey(db, input); // released between our insert and read
  const age = now.getTime() - Date.parse(row.created_at);
  const expired = age > TTL_MS;
  const abandoned = row.state === 'running' && age > abandonedAfterMs;
  if (expired || abandoned) {
    // Take the key over, conditionally on the row we saw, so one taker wins.
    const taken = await db
      .updateTable('idempotency_keys')
      .set({ request_hash: requestHash, state: 'running', status_code: null, response_body: null, created_at: now.toISOString() })
      .where('environment_id', '=', environmentId)
      .where('key', '=', key)
      .where('created_at', '=', row.created_at)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1 ? { kind: 'claimed' } : { kind: 'in_flight' };
  }
  if (row.request_hash !== requestHash) return { kind: 'mismatch' };
  if (row.state === 'running') return { kind: 'in_flight' };
  return { kind: 'replay', status: Number(row.status_code), body: row.response_body ?? '' };
}

export async function completeKey(
  db: Db,
  input: { environmentId: string; key: string; status: number; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', status_code: input.status, response_body: input.body })
    .where('environment_id', '=', input.environmentId)
    .where('key', '=', input.key)
    .execute();
}

/** A failed request frees its key, so the client can correct the body and retry with it. */
export async function releaseKey(db: Db, input: { environmentId: string; key: string }): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('environment_id', '=', input.environmentId)
    .where('key', '=', input.key)
    .where('state', '=', 'running')
    .execute();
}
