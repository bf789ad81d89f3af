import type { ExpressionBuilder, QueryCreator } from 'kysely';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../domain/ids';
import { type EventType } from '../domain/event-types';
import { insertAtCommit } from './compiled';
import { type Db, inTransaction, type Tx, writeTogether } from './db';
import { claimUpdate, forUpdate } from './locking';
import { isPostgres } from './engine';
import type { StoredSale } from './sales';
import type { StoredTransaction } from './transactions';
import type { AuthorizationRow, DeliveryStatus, EventDeliveryRow, Tables } from './schema';
import { markEndpointDelivered, matchingEndpoints, type Signer } from './webhook-endpoints';
import { withLivemode } from './event-list';

// The transactional outbox: an event row is written by the same database transaction as
// the change it reports, with one delivery per destination (the object's notify_url, each
// matching webhook endpoint); delivery workers claim due deliveries from here.

/**
 * The changed object as its change has just read it, in the same database transaction: the
 * event's snapshot is taken from it instead of reading it again (a round trip to the SQLite
 * writer thread each, on the money paths).
 */
export type Known = { sale: StoredSale } | { authorization: AuthorizationRow } | { transaction: StoredTransaction };

/** Records an event for a changed object; called inside the change's database transaction. */
export interface Outbox {
  emit(trx: Tx, type: EventType, objectId: string, now: Date, known?: Known): Promise<void>;
  /** The service's public address: the links in what is queued outside an event (jobs/endpoint-failing.ts). */
  baseUrl(): string;
}

/** Records an event and a delivery to each of its destinations, written by the end of `trx`; the deliveries' count. */
export async function insertEvent(
  trx: Tx,
  e: { id?: string; environmentId: string; type: EventType; objectId: string; notifyUrl: string | null; data: unknown; now: Date },
): Promise<number> {
  const id = e.id ?? uuidv7(e.now.getTime());
  const created = e.now.toISOString();
  const event = {
    id,
    environment_id: e.environmentId,
    type: e.type,
    object_id: e.objectId,
    notify_url: e.notifyUrl,
    payload: JSON.stringify({ id, type: e.type, created, data: e.data }),
    created_at: created,
  };
  const destinations = [
    ...(e.notifyUrl ? [{ endpoint_id: null, url: e.notifyUrl }] : []),
    // An endpoint is not told about itself (its own creation, change or deletion).
    ...(await matchingEndpoints(trx, e.environmentId, e.type))
      .filter((endpoint) => endpoint.id !== e.objectId)
      .map((endpoint) => ({ endpoint_id: endpoint.id, url: endpoint.url })),
  ];
  const deliveries = destinations.map(
    (d): EventDeliveryRow => ({
      id: uuidv7(e.now.getTime()),
      event_id: id,
      environment_id: e.environmentId,
      endpoint_id: d.endpoint_id,
      url: d.url,
      delivery_status: 'pending',
      attempt_count: 0,
      next_attempt_at: created,
      locked_until: null,
      claimed_by: null,
      delivered_at: null,
      created_at: created,
    }),
  );
  // With the rest of the transaction's rows as it commits: a payment's events (its
  // transaction's and its sale's) and their deliveries in one statement with its operation.
  await insertAtCommit(trx, 'events', [event]);
  await insertAtCommit(trx, 'event_deliveries', deliveries);
  return deliveries.length;
}

/** A claimed delivery with what it sends, and who signs it (null: its endpoint is disabled or deleted). */
export type ClaimedDelivery = EventDeliveryRow & { type: string; payload: string; signer: Signer | null };

/**
 * Claims up to `limit` due deliveries for one worker until `now + leaseMs` (store/locking.ts
 * claimUpdate: of two workers racing for a row exactly one gets it; a worker that dies
 * holding a claim loses it when the lease runs out: at-least-once), with what each sends:
 * on PostgreSQL in one statement (the claim as a CTE), on SQLite in two.
 */
export async function claimDueDeliveries(db: Db, now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const due = (eb: ExpressionBuilder<Tables, 'event_deliveries'>) => eb.and([eb('delivery_status', '=', 'pending'), eb('next_attempt_at', '<=', now.toISOString())]);
  const claim = { table: 'event_deliveries', due, order: 'next_attempt_at', now, until: new Date(now.getTime() + leaseMs), claimant: randomUUID(), limit } as const;
  // The signing secrets come with the claim (opened by the sealed-secrets plugin, kept only
  // for the round): a read of each endpoint per delivery was a statement of every webhook (issue 49).
  const sent = (from: ReturnType<typeof db.selectFrom<'event_deliveries'>>) =>
    from
      .innerJoin('events', 'events.id', 'event_deliveries.event_id')
      .innerJoin('environments', 'environments.id', 'events.environment_id')
      .leftJoin('webhook_endpoints', 'webhook_endpoints.id', 'event_deliveries.endpoint_id')
      .selectAll('event_deliveries')
      .select(['events.type', 'events.payload', 'environments.mode', 'environments.webhook_secret'])
      .select(['webhook_endpoints.enabled as endpoint_enabled', 'webhook_endpoints.url as endpoint_url', 'webhook_endpoints.secret', 'webhook_endpoints.previous_secret', 'webhook_endpoints.previous_expires_at']);
  let rows;
  if (isPostgres(db)) {
    // The CTE's rows stand in for the table under its own name: the join reads them as claimed.
    rows = await sent(db.with('event_deliveries', () => claimUpdate(db, claim).returningAll()).selectFrom('event_deliveries')).execute();
  } else {
    const ids = (await claimUpdate(db, claim).returning('id').execute()).map((r) => r.id);
    rows = ids.length ? await sent(db.selectFrom('event_deliveries')).where('event_deliveries.id', 'in', ids).execute() : [];
  }
  return rows.map(({ mode, webhook_secret, endpoint_enabled, endpoint_url, secret, previous_secret, previous_expires_at, ...row }) => ({
    ...row,
    // An endpoint's delivery goes where the endpoint is now: a URL changed since the event
    // (a host given up, or compromised) gets none of its retries.
    url: endpoint_url ?? row.url,
    payload: JSON.stringify(withLivemode(row.payload, mode)),
    signer:
      row.endpoint_id === null
        ? { secret: webhook_secret, previous_secret: null, previous_expires_at: null }
        : endpoint_enabled && secret !== null
          ? { secret, previous_secret, previous_expires_at }
          : null,
  }));
}

export interface AttemptOutcome {
  result: 'delivered' | 'failed' | 'gone';
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
  /** When to try again after a failure; null gives up. */
  retryAt: Date | null;
}

/**
 * Records one attempt of a claimed delivery and releases the claim, and marks its endpoint
 * delivered to when told (`deliveredTo`: what the 3-day rule reads, disableFailingEndpoint);
 * resolves with the delivery's new status. On PostgreSQL in one statement (its writes as
 * data-modifying CTEs: one round trip, no BEGIN and COMMIT around them; issue 49), on
 * SQLite in one transaction sent to the writer as one message (writeTogether).
 */
export async function recordAttempt(db: Db, delivery: EventDeliveryRow, outcome: AttemptOutcome, now: Date, deliveredTo?: string): Promise<DeliveryStatus> {
  const at = now.toISOString();
  const status: DeliveryStatus =
    outcome.result === 'delivered' ? 'delivered' : outcome.result === 'gone' ? 'stopped' : outcome.retryAt ? 'pending' : 'failed';
  const attempt = (q: QueryCreator<Tables>) =>
    q.insertInto('delivery_attempts').values({
      id: uuidv7(now.getTime()),
      delivery_id: delivery.id,
      event_id: delivery.event_id,
      endpoint_id: delivery.endpoint_id,
      attempt: delivery.attempt_count + 1,
      result: outcome.result,
      status_code: outcome.statusCode,
      error: outcome.error,
      response_body: outcome.responseBody,
      duration_ms: outcome.durationMs,
      created_at: at,
    });
  const release = (q: QueryCreator<Tables>) =>
    q
      .updateTable('event_deliveries')
      .set((eb) => ({
        attempt_count: eb('attempt_count', '+', 1),
        delivery_status: status,
        next_attempt_at: status === 'pending' ? outcome.retryAt!.toISOString() : null,
        delivered_at: status === 'delivered' ? at : delivery.delivered_at,
        // Where this attempt went: an endpoint's URL as it was when it was made.
        url: delivery.url,
        locked_until: null,
        claimed_by: null,
      }))
      .where('id', '=', delivery.id)
      .where('claimed_by', '=', delivery.claimed_by);
  if (isPostgres(db)) {
    const both = db.with('attempt', attempt).with('released', (q) => release(q).returning('id'));
    await (deliveredTo ? markEndpointDelivered(both, deliveredTo, now) : both.selectFrom('released').select('id')).execute();
    return status;
  }
  const writes = [attempt(db), release(db), ...(deliveredTo ? [markEndpointDelivered(db, deliveredTo, now)] : [])];
  await writeTogether(db, writes.map((q) => q.compile()));
  return status;
}

/** Stops a claimed delivery without an attempt: its endpoint was disabled or deleted meanwhile. */
export async function stopDelivery(db: Db, delivery: EventDeliveryRow): Promise<void> {
  await db
    .updateTable('event_deliveries')
    .set({ delivery_status: 'stopped', next_attempt_at: null, locked_until: null, claimed_by: null })
    .where('id', '=', delivery.id)
    .where('claimed_by', '=', delivery.claimed_by)
    .execute();
}

/** Which deliveries a retry names: the notify_url's, a webhook endpoint's (by its id), or every one that failed. */
export type RetryTarget = { destination: 'notify_url' } | { destination: 'endpoint'; endpointId: string } | { destination: 'failed' };

/**
 * Schedules one more attempt now of the named delivery, whatever its state, or of every
 * delivery not delivered (every delivery, when all were: a resend). Refused while a worker
 * holds one of them: its result would overwrite the new schedule.
 */
export async function retryEvent(
  db: Db,
  environmentId: string,
  id: string,
  now: Date,
  target: RetryTarget = { destination: 'failed' },
): Promise<'retried' | 'in_flight' | 'not_found' | 'no_destination' | 'endpoint_off'> {
  const at = now.toISOString();
  return inTransaction(db, async (trx) => {
    const event = await trx.selectFrom('events').select('id').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
    if (!event) return 'not_found';
    // Locked, so a worker cannot claim one between the check below and the update.
    const all = await forUpdate(trx, trx.selectFrom('event_deliveries').selectAll().where('event_id', '=', id)).execute();
    const undelivered = all.filter((d) => d.delivery_status !== 'delivered');
    const chosen =
      target.destination === 'notify_url'
        ? all.filter((d) => d.endpoint_id === null)
        : target.destination === 'endpoint'
          ? all.filter((d) => d.endpoint_id === target.endpointId)
          : undelivered.length
            ? undelivered
            : all;
    if (!chosen.length) return 'no_destination';
    if (chosen.some((d) => d.locked_until !== null && d.locked_until > at)) return 'in_flight';
    // A disabled or deleted endpoint is sent nothing (the worker stops its delivery): not made pending, never answered as retried.
    const endpointIds = [...new Set(chosen.flatMap((d) => (d.endpoint_id ? [d.endpoint_id] : [])))];
    const enabled = new Set(
      endpointIds.length ? (await trx.selectFrom('webhook_endpoints').select('id').where('id', 'in', endpointIds).where('enabled', '=', 1).execute()).map((e) => e.id) : [],
    );
    const sendable = chosen.filter((d) => d.endpoint_id === null || enabled.has(d.endpoint_id));
    if (!sendable.length) return 'endpoint_off';
    await trx
      .updateTable('event_deliveries')
      .set({ delivery_status: 'pending', next_attempt_at: at })
      .where(
        'id',
        'in',
        sendable.map((d) => d.id),
      )
      .execute();
    return 'retried';
  });
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

/** A deleted endpoint's deliveries not yet made are stopped; their history stays on the events. */
export async function stopEndpointDeliveries(db: Db, endpointId: string): Promise<void> {
  await db.updateTable('event_deliveries').set({ delivery_status: 'stopped', next_attempt_at: null }).where('endpoint_id', '=', endpointId).where('delivery_status', '=', 'pending').execute();
}
