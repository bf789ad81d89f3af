import { randomUUID } from 'node:crypto';
import { insertAtCommit } from './compiled';
import type { Db, Tx } from './db';

export type Claim =
  /** Run the request: `binding` names its gateway calls (the same as a dead owner's, after a takeover). */
  | { kind: 'claimed'; owner: string; binding: string }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'mismatch' }
  /** Another claim is running: try again after `retryAfterMs` at the latest it can be taken over. */
  | { kind: 'in_flight'; retryAfterMs: number };

/** How long a key's answer is kept and replayed (the API's promise, docs/api.md). */
export const TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still "running" after this long belongs to a process that died mid-request. A
 * request that calls gateways may legitimately run longer: its route adds the claim of
 * each call it can make (see http/route.ts).
 */
export const KEY_ABANDONED_MS = 60 * 1000;

/** An answer that is not final (202: the outcome is still unknown): a repeat runs again to report the current state. */
const PROVISIONAL = 202;

/**
 * Claims an Idempotency-Key for a request. The primary key (environment, key) makes
 * concurrent claims race in the database: exactly one inserts, the others see its row.
 */
export async function claimKey(
  db: Db,
  input: { environmentId: string; key: string; requestHash: string; now: Date; abandonedAfterMs?: number },
): Promise<Claim> {
  const { environmentId, key, requestHash, now, abandonedAfterMs = KEY_ABANDONED_MS } = input;
  const owner = randomUUID();
  const binding = randomUUID();
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
      owner,
      binding,
    })
    .onConflict((oc) => oc.columns(['environment_id', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed', owner, binding };

  const row = await db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (!row) return claimKey(db, input); // released between our insert and read
  const age = now.getTime() - Date.parse(row.created_at);
  const expired = age > TTL_MS;
  const sameRequest = row.request_hash === requestHash;
  const abandoned = row.state === 'running' && age > abandonedAfterMs;
  const provisional = row.state === 'done' && Number(row.status_code) === PROVISIONAL && sameRequest;
  if (expired || (abandoned && sameRequest) || provisional) {
    // Take the key over, conditionally on the row we saw, so one taker wins. Within its
    // lifetime it keeps its binding: the new run rolls the dead one's gateway calls forward.
    const kept = expired ? binding : (row.binding ?? binding);
    const taken = await db
      .updateTable('idempotency_keys')
      .set({ request_hash: requestHash, state: 'running', status_code: null, response_body: null, owner, binding: kept, ...(expired || abandoned ? { created_at: now.toISOString() } : {}) })
      .where('environment_id', '=', environmentId)
      .where('key', '=', key)
      .where('created_at', '=', row.created_at)
      .where('state', '=', row.state)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1 ? { kind: 'claimed', owner, binding: kept } : { kind: 'in_flight', retryAfterMs: 1000 };
  }
  if (!sameRequest) return { kind: 'mismatch' };
  if (row.state === 'running') return { kind: 'in_flight', retryAfterMs: Math.max(1000, abandonedAfterMs - age) };
  return { kind: 'replay', status: Number(row.status_code), body: row.response_body ?? '' };
}

/**
 * A key recorded done with its answer, in the transaction of the work it answers, when no
 * claim was taken first (commands/idempotent.ts): inserted as that transaction commits
 * (compiled.ts insertAtCommit), so the work and its key reach the database together, with
 * no answer waited for before the commit (issue 49). When the key is there already the
 * commit fails, and isKeyTaken tells that error. On PostgreSQL a key inserted by a
 * transaction still running is waited for, so the caller fails once that one has committed.
 */
export function recordKeyAtCommit(
  trx: Tx,
  input: { environmentId: string; key: string; requestHash: string; now: Date; status: number; body: string },
): Promise<void> {
  return insertAtCommit(trx, 'idempotency_keys', [
    {
      environment_id: input.environmentId,
      key: input.key,
      request_hash: input.requestHash,
      state: 'done',
      status_code: input.status,
      response_body: input.body,
      created_at: input.now.toISOString(),
      owner: randomUUID(),
      binding: randomUUID(),
    },
  ]);
}

/** The commit's error when the key recordKeyAtCommit inserted was there already (its primary key, migration 001). */
export function isKeyTaken(err: unknown): boolean {
  const { code, constraint, message } = (err ?? {}) as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === '23505') return constraint === 'idempotency_keys_pk';
  return code === 'SQLITE_CONSTRAINT_PRIMARYKEY' && typeof message === 'string' && message.includes('idempotency_keys.');
}

export async function completeKey(
  db: Db,
  input: { environmentId: string; key: string; owner: string; status: number; body: string },
): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', status_code: input.status, response_body: input.body })
    .where('environment_id', '=', input.environmentId)
    .where('key', '=', input.key)
    .where('owner', '=', input.owner)
    .execute();
}

/** A failed request frees its key, so the client can correct the body and retry with it. */
export async function releaseKey(db: Db, input: { environmentId: string; key: string; owner: string }): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('environment_id', '=', input.environmentId)
    .where('key', '=', input.key)
    .where('state', '=', 'running')
    .where('owner', '=', input.owner)
    .execute();
}

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
