import type { ExpressionBuilder } from 'kysely';
import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../domain/ids';
import { insertRows } from './compiled';
import { type Db, inTransaction, type Tx } from './db';
import { claimBatch, forUpdate } from './locking';
import type { Page } from './paging';
import type { StoredSale } from './sales';
import type { StoredTransaction } from './transactions';
import type { AuthorizationRow, DeliveryAttemptRow, DeliveryStatus, EnvironmentMode, EventDeliveryRow, EventRow, Tables } from './schema';
import { matchingEndpoints } from './webhook-endpoints';

// The transactional outbox: an event row is written by the same database transaction as
// the change it reports, with one delivery per destination (the object's notify_url, each
// matching webhook endpoint); delivery workers claim due deliveries from here.

/**
 * Every event family and its changes: the one registry. A family added here must be given
 * its snapshot in notify/outbox.ts (a compile error until it is), and its types are then
 * accepted everywhere an event type is.
 */
export const EVENT_FAMILIES = {
  transaction: ['paid', 'cancelled', 'expired'],
  sale: ['created', 'declined', 'failed', 'captured', 'refunded', 'voided', 'hold_expired', 'late_payment', 'refund_failed'],
  authorization: ['created', 'charged', 'removed', 'failed', 'expired'],
  client: ['created', 'updated', 'compliance_changed'],
  iban: ['created', 'updated', 'compliance_changed'],
  document: ['accepted', 'rejected'],
  wallet: ['credited', 'debited'],
  // in_transit, returned and pending (back from a cancelled file): payouts by SEPA file (docs/balance.md#payout-files).
  transfer: ['paid', 'failed', 'in_transit', 'returned', 'pending'],
  merchant_payout: ['created', 'paid', 'failed', 'in_transit', 'returned', 'pending'],
  subscription: ['started', 'paused', 'resumed', 'stopped', 'charged', 'charge_failed', 'past_due'],
  webhook_endpoint: ['created', 'updated', 'deleted', 'disabled'],
  product: ['created', 'updated', 'deleted'],
  plan: ['created', 'updated', 'deleted'],
  tax: ['created', 'updated', 'deleted'],
  shipping: ['created', 'updated', 'deleted'],
  coupon: ['created', 'updated', 'deleted'],
  dispute: ['created', 'updated', 'closed'],
} as const;

type Families = typeof EVENT_FAMILIES;
export type EventFamily = keyof Families;
export type EventType = { [F in EventFamily]: `${F}.${Families[F][number]}` }[EventFamily];

export const EVENT_TYPES = Object.entries(EVENT_FAMILIES).flatMap(([family, changes]) =>
  changes.map((change) => `${family}.${change}`),
) as [EventType, ...EventType[]];

/** The catalogue's families: their snapshots are the catalogue's own presenters (notify/outbox.ts). */
export type CatalogueFamily = 'product' | 'plan' | 'tax' | 'shipping' | 'coupon';

export const familyOf = (type: EventType): EventFamily => type.slice(0, type.indexOf('.')) as EventFamily;

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

export async function insertEvent(
  trx: Tx,
  e: { id?: string; environmentId: string; type: EventType; objectId: string; notifyUrl: string | null; data: unknown; now: Date },
): Promise<void> {
  const id = e.id ?? uuidv7(e.now.getTime());
  const created = e.now.toISOString();
  await insertRows(trx, 'events', [
    {
      id,
      environment_id: e.environmentId,
      type: e.type,
      object_id: e.objectId,
      notify_url: e.notifyUrl,
      payload: JSON.stringify({ id, type: e.type, created, data: e.data }),
      created_at: created,
    },
  ]);
  const destinations = [
    ...(e.notifyUrl ? [{ endpoint_id: null, url: e.notifyUrl }] : []),
    // An endpoint is not told about itself (its own creation, change or deletion).
    ...(await matchingEndpoints(trx, e.environmentId, e.type))
      .filter((endpoint) => endpoint.id !== e.objectId)
      .map((endpoint) => ({ endpoint_id: endpoint.id, url: endpoint.url })),
  ];
  if (!destinations.length) return;
  await trx
    .insertInto('event_deliveries')
    .values(
      destinations.map((d) => ({
        id: uuidv7(e.now.getTime()),
        event_id: id,
        environment_id: e.environmentId,
        endpoint_id: d.endpoint_id,
        url: d.url,
        delivery_status: 'pending' as const,
        attempt_count: 0,
        next_attempt_at: created,
        locked_until: null,
        claimed_by: null,
        delivered_at: null,
        created_at: created,
      })),
    )
    .execute();
}

/** A claimed delivery with what it sends. */
export type ClaimedDelivery = EventDeliveryRow & { type: string; payload: string };

/**
 * Claims up to `limit` due deliveries for one worker until `now + leaseMs`. A claim is a
 * conditional UPDATE, so of two workers racing for a row exactly one gets it; a worker
 * that dies holding a claim loses it when the lease runs out (at-least-once).
 */
export async function claimDueDeliveries(db: Db, now: Date, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const token = randomUUID();
  return inTransaction(db, async (trx) => {
    const due = (eb: ExpressionBuilder<Tables, 'event_deliveries'>) => eb.and([eb('delivery_status', '=', 'pending'), eb('next_attempt_at', '<=', now.toISOString())]);
    const ids = await claimBatch(trx, { table: 'event_deliveries', due, order: 'next_attempt_at', now, until: new Date(now.getTime() + leaseMs), claimant: token, limit });
    if (!ids.length) return [];
    const rows = await trx
      .selectFrom('event_deliveries')
      .innerJoin('events', 'events.id', 'event_deliveries.event_id')
      .innerJoin('environments', 'environments.id', 'events.environment_id')
      .selectAll('event_deliveries')
      .select(['events.type', 'events.payload', 'environments.mode'])
      .where('event_deliveries.id', 'in', ids)
      .where('event_deliveries.claimed_by', '=', token)
      .execute();
    return rows.map(({ mode, ...row }) => ({ ...row, payload: JSON.stringify(withLivemode(row.payload, mode)) }));
  });
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

/** Records one attempt of a claimed delivery and releases the claim; resolves with the delivery's new status. */
export async function recordAttempt(db: Db, delivery: EventDeliveryRow, outcome: AttemptOutcome, now: Date): Promise<DeliveryStatus> {
  const at = now.toISOString();
  const status: DeliveryStatus =
    outcome.result === 'delivered' ? 'delivered' : outcome.result === 'gone' ? 'stopped' : outcome.retryAt ? 'pending' : 'failed';
  await inTransaction(db, async (trx) => {
    await trx
      .insertInto('delivery_attempts')
      .values({
        id: uuidv7(now.getTime()),
        delivery_id: delivery.id,
        event_id: delivery.event_id,
        attempt: delivery.attempt_count + 1,
        result: outcome.result,
        status_code: outcome.statusCode,
        error: outcome.error,
        response_body: outcome.responseBody,
        duration_ms: outcome.durationMs,
        created_at: at,
      })
      .execute();
    await trx
      .updateTable('event_deliveries')
      .set((eb) => ({
        attempt_count: eb('attempt_count', '+', 1),
        delivery_status: status,
        next_attempt_at: status === 'pending' ? outcome.retryAt!.toISOString() : null,
        delivered_at: status === 'delivered' ? at : delivery.delivered_at,
        locked_until: null,
        claimed_by: null,
      }))
      .where('id', '=', delivery.id)
      .where('claimed_by', '=', delivery.claimed_by)
      .execute();
  });
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

export interface EventFilters {
  type?: string;
  /** The status of the event's notify_url delivery. */
  delivery_status?: string;
  object_id?: string;
  /** Created at or after (ISO 8601). */
  created_from?: string;
  /** Created before (ISO 8601). */
  created_to?: string;
}

/** The state of an event's notify_url delivery, as the event's own fields show it; null without one. */
interface NotifyState {
  delivery_status: DeliveryStatus | null;
  attempt_count: number | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
}

/** An event as the store hands it out: its payload (JSON text in the row) parsed, its notify_url delivery's state. */
export type StoredEvent = Omit<EventRow, 'payload'> &
  NotifyState & { payload: { id: string; type: string; created: string; data: Record<string, unknown>; livemode: boolean }; deliveries: EventDeliveryRow[] };

/**
 * An event's payload as delivered and listed: the event, and the object it carries, say
 * whether they are live. Added on the way out rather than stored: an environment's mode
 * never changes, and the write path of every change stays one statement shorter.
 */
function withLivemode(payload: string, mode: EnvironmentMode): StoredEvent['payload'] {
  const parsed = JSON.parse(payload) as StoredEvent['payload'];
  const livemode = mode === 'live';
  return { ...parsed, data: { ...parsed.data, livemode }, livemode };
}

function eventsQuery(db: Db, environmentId: string) {
  return db
    .selectFrom('events')
    .innerJoin('environments', 'environments.id', 'events.environment_id')
    .leftJoin('event_deliveries as nd', (join) => join.onRef('nd.event_id', '=', 'events.id').on('nd.endpoint_id', 'is', null))
    .where('events.environment_id', '=', environmentId);
}

async function withDeliveries(db: Db, rows: (EventRow & NotifyState & { mode: EnvironmentMode })[]): Promise<StoredEvent[]> {
  const deliveries = rows.length
    ? await db
        .selectFrom('event_deliveries')
        .selectAll()
        .where(
          'event_id',
          'in',
          rows.map((r) => r.id),
        )
        .orderBy('id')
        .execute()
    : [];
  return rows.map(({ mode, ...row }) => ({
    ...row,
    payload: withLivemode(row.payload, mode),
    deliveries: deliveries.filter((d) => d.event_id === row.id),
  }));
}

const EVENT_COLUMNS = [
  'events.id',
  'events.environment_id',
  'events.type',
  'events.object_id',
  'events.notify_url',
  'events.payload',
  'events.created_at',
  'environments.mode',
  'nd.delivery_status',
  'nd.attempt_count',
  'nd.next_attempt_at',
  'nd.delivered_at',
] as const;

/** The environment's events that `f` asks for, by the events' own columns. */
const matching = (environmentId: string, f: EventFilters) => (eb: ExpressionBuilder<Pick<Tables, 'events'>, 'events'>) =>
  eb.and([
    eb('events.environment_id', '=', environmentId),
    ...(f.type !== undefined ? [eb('events.type', '=', f.type)] : []),
    ...(f.object_id !== undefined ? [eb('events.object_id', '=', f.object_id)] : []),
    ...(f.created_from !== undefined ? [eb('events.created_at', '>=', f.created_from)] : []),
    ...(f.created_to !== undefined ? [eb('events.created_at', '<', f.created_to)] : []),
  ]);

export async function listEvents(db: Db, environmentId: string, f: EventFilters, page: Page) {
  let query = eventsQuery(db, environmentId).where(matching(environmentId, f));
  if (f.delivery_status !== undefined) query = query.where('nd.delivery_status', '=', f.delivery_status as DeliveryStatus);
  // Counted from the events' own index unless the notify_url delivery's status filters: an
  // event has one environment and at most one notify_url delivery, so the joins add no row,
  // and walking them for every event of a large shop cost most of the page (docs/performance.md).
  const counted = f.delivery_status === undefined ? db.selectFrom('events').where(matching(environmentId, f)) : query;
  const { n } = await counted.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const rows = await query
    .select(EVENT_COLUMNS)
    .orderBy('events.id', 'desc')
    .limit(page.page_size)
    .offset((page.page - 1) * page.page_size)
    .execute();
  return { count: Number(n), rows: await withDeliveries(db, rows) };
}

/**
 * Events after `after` (an event id), oldest first, at most `limit`: what a listener has
 * not seen yet. Ids are UUIDv7, so they follow the order the events were made in.
 */
export async function eventsAfter(db: Db, environmentId: string, after: string, limit: number): Promise<StoredEvent[]> {
  const rows = await eventsQuery(db, environmentId).select(EVENT_COLUMNS).where('events.id', '>', after).orderBy('events.id').limit(limit).execute();
  return withDeliveries(db, rows);
}

/** The id of the environment's newest event, where a listener that starts now begins. */
export async function newestEventId(db: Db, environmentId: string): Promise<string | null> {
  const row = await db
    .selectFrom('events')
    .select('id')
    .where('environment_id', '=', environmentId)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

export async function getEvent(
  db: Db,
  environmentId: string,
  id: string,
): Promise<{ row: StoredEvent; attempts: DeliveryAttemptRow[] } | undefined> {
  const row = await eventsQuery(db, environmentId).select(EVENT_COLUMNS).where('events.id', '=', id).executeTakeFirst();
  if (!row) return undefined;
  const attempts = await db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('event_id', '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return { row: (await withDeliveries(db, [row]))[0]!, attempts };
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
): Promise<'retried' | 'in_flight' | 'not_found' | 'no_destination'> {
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
    await trx
      .updateTable('event_deliveries')
      .set({ delivery_status: 'pending', next_attempt_at: at })
      .where(
        'id',
        'in',
        chosen.map((d) => d.id),
      )
      .execute();
    return 'retried';
  });
}
