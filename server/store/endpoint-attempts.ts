import type { Db } from './db';
import type { DeliveryAttemptRow, EventRow } from './schema';

// A webhook endpoint's delivery attempts as its dashboard page lists them: newest first, a
// page at a time from the last one shown (a cursor: attempts are added by the second, so no
// count and no offset), each with its event's type. Read from the attempts' endpoint index
// (migration 136) in the order it holds them; written by events.ts, the outbox, alone.

export type EndpointAttempt = Pick<
  DeliveryAttemptRow,
  'id' | 'event_id' | 'attempt' | 'result' | 'status_code' | 'error' | 'response_body' | 'duration_ms' | 'created_at'
> &
  Pick<EventRow, 'type'>;

/** The endpoint's attempts of the environment: its deliveries' (each has its event's environment). */
function attemptsOf(db: Db, environmentId: string, endpointId: string) {
  return db
    .selectFrom('delivery_attempts as a')
    .innerJoin('event_deliveries as d', 'd.id', 'a.delivery_id')
    .where('a.endpoint_id', '=', endpointId)
    .where('d.environment_id', '=', environmentId);
}

/**
 * Up to `limit` attempts to the endpoint, newest first, after the attempt `before` (its id;
 * one of another endpoint, or purged, starts from the newest), and whether more follow.
 */
export async function listEndpointAttempts(
  db: Db,
  environmentId: string,
  endpointId: string,
  page: { limit: number; before?: string },
): Promise<{ rows: EndpointAttempt[]; more: boolean }> {
  const from = page.before ? await attemptsOf(db, environmentId, endpointId).select(['a.created_at', 'a.id']).where('a.id', '=', page.before).executeTakeFirst() : undefined;
  let q = attemptsOf(db, environmentId, endpointId)
    .innerJoin('events as e', 'e.id', 'a.event_id')
    .select(['a.id', 'a.event_id', 'a.attempt', 'a.result', 'a.status_code', 'a.error', 'a.response_body', 'a.duration_ms', 'a.created_at', 'e.type']);
  if (from) q = q.where((eb) => eb.or([eb('a.created_at', '<', from.created_at), eb.and([eb('a.created_at', '=', from.created_at), eb('a.id', '<', from.id)])]));
  const rows = await q.orderBy('a.created_at', 'desc').orderBy('a.id', 'desc').limit(page.limit + 1).execute();
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}

/** The event of one attempt to the endpoint, if the attempt is the endpoint's: what sending it again names. */
export async function attemptEvent(db: Db, environmentId: string, endpointId: string, attemptId: string): Promise<string | undefined> {
  const row = await attemptsOf(db, environmentId, endpointId).select('a.event_id').where('a.id', '=', attemptId).executeTakeFirst();
  return row?.event_id;
}
