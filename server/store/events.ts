import { randomUUID } from 'node:crypto';
import { uuidv7 } from '../domain/ids';
import { type Db, inTransaction, type Tx } from './db';
import { skipLocked } from './locking';
import { countAndPage, type Page } from './paging';
import type { DeliveryAttemptRow, EventRow } from './schema';

// The transactional outbox: an event row is written by the same database transaction as
// the change it reports, and delivery workers claim due rows from here.

/**
 * Every event family and its changes: the one registry. A family added here must be given
 * its snapshot in notify/outbox.ts (a compile error until it is), and its types are then
 * accepted everywhere an event type is.
 */
export const EVENT_FAMILIES = {
  transaction: ['paid', 'cancelled', 'expired'],
  sale: ['created', 'declined', 'captured', 'refunded', 'voided'],
  authorization: ['created', 'charged', 'removed'],
  client: ['created', 'updated', 'compliance_changed'],
  iban: ['created', 'updated', 'compliance_changed'],
  document: ['accepted', 'rejected'],
  wallet: ['credited', 'debited'],
  transfer: ['paid', 'failed'],
  subscription: ['started', 'paused', 'resumed', 'stopped', 'charged', 'charge_failed', 'past_due'],
} as const;

type Families = typeof EVENT_FAMILIES;
export type EventFamily = keyof Families;
export type EventType = { [F in EventFamily]: `${F}.${Families[F][number]}` }[EventFamily];

export const EVENT_TYPES = Object.entries(EVENT_FAMILIES).flatMap(([family, changes]) =>
  changes.map((change) => `${family}.${change}`),
) as [EventType, ...EventType[]];

export const familyOf = (type: EventType): EventFamily => type.slice(0, type.indexOf('.')) as EventFamily;

/** Records an event for a changed object; called inside the change's database transaction. */
export interface Outbox {
  emit(trx: Tx, type: EventType, objectId: string, now: Date): Promise<void>;
}

export async function insertEvent(
  trx: Tx,
  e: { environmentId: string; type: EventType; objectId: string; notifyUrl: string; data: unknown; now: Date },
): Promise<void> {
  const id = uuidv7(e.now.getTime());
  const created = e.now.toISOString();
  await trx
    .insertInto('events')
    .values({
      id,
      environment_id: e.environmentId,
      type: e.type,
      object_id: e.objectId,
      notify_url: e.notifyUrl,
      payload: JSON.stringify({ id, type: e.type, created, data: e.data }),
      delivery_status: 'pending',
      attempt_count: 0,
      next_attempt_at: created,
      locked_until: null,
      claimed_by: null,
      delivered_at: null,
      created_at: created,
    })
    .execute();
}

/**
 * Claims up to `limit` due events for one worker until `now + leaseMs`. A claim is a
 * conditional UPDATE, so of two workers racing for a row exactly one gets it; a worker
 * that dies holding a claim loses it when the lease runs out (at-least-once).
 */
export async function claimDueEvents(db: Db, now: Date, leaseMs: number, limit: number): Promise<EventRow[]> {
  const at = now.toISOString();
  const token = randomUUID();
  return inTransaction(db, async (trx) => {
    const due = await skipLocked(
      trx,
      trx
        .selectFrom('events')
        .select('id')
        .where('delivery_status', '=', 'pending')
        .where('next_attempt_at', '<=', at)
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]))
        .orderBy('next_attempt_at')
        .limit(limit),
    ).execute();
    if (!due.length) return [];
    const ids = due.map((r) => r.id);
    await trx
      .updateTable('events')
      .set({ locked_until: new Date(now.getTime() + leaseMs).toISOString(), claimed_by: token })
      .where('id', 'in', ids)
      .where('delivery_status', '=', 'pending')
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]))
      .execute();
    return trx.selectFrom('events').selectAll().where('id', 'in', ids).where('claimed_by', '=', token).execute();
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

/** Records one attempt of a claimed event and releases the claim. */
export async function recordAttempt(db: Db, event: EventRow, outcome: AttemptOutcome, now: Date): Promise<void> {
  const at = now.toISOString();
  const status =
    outcome.result === 'delivered' ? 'delivered' : outcome.result === 'gone' ? 'stopped' : outcome.retryAt ? 'pending' : 'failed';
  await inTransaction(db, async (trx) => {
    await trx
      .insertInto('delivery_attempts')
      .values({
        id: uuidv7(now.getTime()),
        event_id: event.id,
        attempt: event.attempt_count + 1,
        result: outcome.result,
        status_code: outcome.statusCode,
        error: outcome.error,
        response_body: outcome.responseBody,
        duration_ms: outcome.durationMs,
        created_at: at,
      })
      .execute();
    await trx
      .updateTable('events')
      .set((eb) => ({
        attempt_count: eb('attempt_count', '+', 1),
        delivery_status: status,
        next_attempt_at: status === 'pending' ? outcome.retryAt!.toISOString() : null,
        delivered_at: status === 'delivered' ? at : event.delivered_at,
        locked_until: null,
        claimed_by: null,
      }))
      .where('id', '=', event.id)
      .where('claimed_by', '=', event.claimed_by)
      .execute();
  });
}

export interface EventFilters {
  type?: string;
  delivery_status?: string;
  object_id?: string;
}

/** An event as the store hands it out: its payload (JSON text in the row) parsed. */
export type StoredEvent = Omit<EventRow, 'payload'> & { payload: { data: Record<string, unknown> } };
const eventOf = (row: EventRow): StoredEvent => ({ ...row, payload: JSON.parse(row.payload) as StoredEvent['payload'] });

export async function listEvents(db: Db, environmentId: string, f: EventFilters, page: Page) {
  let query = db.selectFrom('events').where('environment_id', '=', environmentId);
  if (f.type !== undefined) query = query.where('type', '=', f.type);
  if (f.delivery_status !== undefined) query = query.where('delivery_status', '=', f.delivery_status);
  if (f.object_id !== undefined) query = query.where('object_id', '=', f.object_id);
  const { count, rows } = await countAndPage<EventRow>(query, page);
  return { count, rows: rows.map(eventOf) };
}

export async function getEvent(
  db: Db,
  environmentId: string,
  id: string,
): Promise<{ row: StoredEvent; attempts: DeliveryAttemptRow[] } | undefined> {
  const row = await db
    .selectFrom('events')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  const attempts = await db
    .selectFrom('delivery_attempts')
    .selectAll()
    .where('event_id', '=', id)
    .orderBy('attempt')
    .orderBy('id')
    .execute();
  return { row: eventOf(row), attempts };
}

/**
 * Schedules one more attempt now, whatever the event's state. Refused while a worker holds
 * the event: its result would overwrite the new schedule.
 */
export async function retryEvent(db: Db, environmentId: string, id: string, now: Date): Promise<'retried' | 'in_flight' | 'not_found'> {
  const at = now.toISOString();
  const result = await db
    .updateTable('events')
    .set({ delivery_status: 'pending', next_attempt_at: at })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 1) return 'retried';
  return (await getEvent(db, environmentId, id)) ? 'in_flight' : 'not_found';
}
