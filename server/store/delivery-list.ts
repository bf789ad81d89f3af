import type { Db } from './db';
import { countOf, type Page, pageOf } from './paging';
import type { DeliveryAttemptRow, EventDeliveryRow, EventRow } from './schema';

// The dashboard's webhook deliveries: one row for each place an event was sent (a webhook
// endpoint or a transaction's notify_url) with its last attempt's answer, newest event
// first. An event that had nowhere to go is not a delivery: the Events page lists it.
// Read through the events' environment index, then the deliveries' event index; counted by
// the deliveries' environment index (migration 128).

export type ListedDelivery = Pick<EventDeliveryRow, 'id' | 'event_id' | 'endpoint_id' | 'url' | 'delivery_status' | 'attempt_count'> &
  Pick<EventRow, 'type' | 'created_at'> & { last: Pick<DeliveryAttemptRow, 'status_code' | 'error' | 'duration_ms'> | null };

export async function listDeliveries(db: Db, environmentId: string, page: Page): Promise<{ count: number; rows: ListedDelivery[] }> {
  const query = db.selectFrom('events as e').innerJoin('event_deliveries as d', 'd.event_id', 'e.id').where('e.environment_id', '=', environmentId);
  const rows = await pageOf(
    query.select(['d.id', 'd.event_id', 'd.endpoint_id', 'd.url', 'd.delivery_status', 'd.attempt_count', 'e.type', 'e.created_at']).orderBy('e.id', 'desc').orderBy('d.id'),
    page,
  ).execute();
  const attempts = rows.length
    ? await db
        .selectFrom('delivery_attempts')
        .select(['delivery_id', 'status_code', 'error', 'duration_ms'])
        .where(
          'delivery_id',
          'in',
          rows.map((r) => r.id),
        )
        .orderBy('attempt')
        .execute()
    : [];
  // In attempt order: the last one written for a delivery is its latest.
  const last = new Map(attempts.map(({ delivery_id, ...answer }) => [delivery_id, answer]));
  // A delivery has its event's environment: counted by the deliveries' own environment index.
  const count = await countOf(page, rows.length, async () => (await db.selectFrom('event_deliveries').where('environment_id', '=', environmentId).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { count, rows: rows.map((r) => ({ ...r, last: last.get(r.id) ?? null })) };
}
