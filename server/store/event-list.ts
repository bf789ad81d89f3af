import type { ExpressionBuilder } from 'kysely';
import type { Db } from './db';
import { countOf, type Page, pageOf } from './paging';
import type { DeliveryAttemptRow, DeliveryStatus, EnvironmentMode, EventDeliveryRow, EventRow, Tables } from './schema';

// The events as the API and the dashboard read them: filtered and paged, one with its
// attempts, those after one a listener saw. Written by events.ts, the outbox, alone.

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
export function withLivemode(payload: string, mode: EnvironmentMode): StoredEvent['payload'] {
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
  // and walking them for every event of a large shop cost most of the page (docs/performance-changelog.md).
  const counted = f.delivery_status === undefined ? db.selectFrom('events').where(matching(environmentId, f)) : query;
  const rows = await pageOf(query.select(EVENT_COLUMNS).orderBy('events.id', 'desc'), page).execute();
  const count = await countOf(page, rows.length, async () => (await counted.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { count, rows: await withDeliveries(db, rows) };
}

/**
 * Events after `after` (an event id), oldest first, at most `limit`: what a listener has
 * not seen yet. Ids are UUIDv7, so they follow the order the events were made in.
 */
export async function eventsAfter(db: Db, environmentId: string, after: string, limit: number): Promise<StoredEvent[]> {
  const rows = await eventsQuery(db, environmentId).select(EVENT_COLUMNS).where('events.id', '>', after).orderBy('events.id').limit(limit).execute();
  return withDeliveries(db, rows);
}

/** An event as the Overview's recent activity shows it: what it says, when, and the object it carries. */
export interface RecentEvent {
  id: string;
  type: string;
  created_at: string;
  data: Record<string, unknown>;
}

/** The environment's newest `limit` events, newest first (the events' own index, no join): the Overview's recent activity. */
export async function recentEvents(db: Db, environmentId: string, limit: number): Promise<RecentEvent[]> {
  const rows = await db.selectFrom('events').select(['id', 'type', 'created_at', 'payload']).where('environment_id', '=', environmentId).orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ id: r.id, type: r.type, created_at: r.created_at, data: (JSON.parse(r.payload) as { data: Record<string, unknown> }).data }));
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
