import { z } from 'zod';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { EVENT_TYPES, getEvent, listEvents, retryEvent, type StoredEvent } from '../store/events';
import type { DeliveryAttemptRow } from '../store/schema';

// Events: the notifications the service sent (or is sending) to the merchant's
// notify_urls, with every delivery attempt, so a merchant can see why a webhook failed.

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'stopped'] as const;

const eventOut = z
  .object({
    id: z.uuid().describe('Also the `webhook-id` of every delivery of this event'),
    type: z.enum(EVENT_TYPES),
    created: z.string(),
    data: z.record(z.string(), z.unknown()).describe('The object as the API returned it when the event happened'),
    notify_url: z.string(),
    delivery_status: z
      .enum(DELIVERY_STATUSES)
      .describe('pending: will be tried (again); delivered: a 2xx came back; failed: retries ran out; stopped: the receiver answered 410'),
    attempt_count: z.number().int(),
    next_attempt: z.string().nullable(),
    delivered: z.string().nullable(),
  })
  .meta({ id: 'Event' });

const attemptOut = z.object({
  attempt: z.number().int(),
  created: z.string(),
  result: z.enum(['delivered', 'failed', 'gone']),
  status_code: z.number().int().nullable(),
  error: z.string().nullable().describe('Why no status came back: timeout, refused address, connection error'),
  response_body: z.string().nullable().describe('The first 1000 characters of the answer'),
  duration_ms: z.number().int(),
});

const eventDetailOut = eventOut.extend({ attempts: z.array(attemptOut) }).meta({ id: 'EventWithAttempts' });

function presentEvent(row: StoredEvent): z.input<typeof eventOut> {
  return {
    id: row.id,
    type: row.type as (typeof EVENT_TYPES)[number],
    created: row.created_at,
    data: row.payload.data,
    notify_url: row.notify_url,
    delivery_status: row.delivery_status as (typeof DELIVERY_STATUSES)[number],
    attempt_count: row.attempt_count,
    next_attempt: row.next_attempt_at,
    delivered: row.delivered_at,
  };
}

const presentDetail = ({ row, attempts }: { row: StoredEvent; attempts: DeliveryAttemptRow[] }) => ({
  ...presentEvent(row),
  attempts: attempts.map((a) => ({
    attempt: a.attempt,
    created: a.created_at,
    result: a.result,
    status_code: a.status_code,
    error: a.error,
    response_body: a.response_body,
    duration_ms: a.duration_ms,
  })),
});

const listQuery = pageQuery.extend({
  type: z.enum(EVENT_TYPES).optional(),
  delivery_status: z.enum(DELIVERY_STATUSES).optional(),
  object_id: z.uuid().optional(),
});

const notFound = () => new ApiError('not_found', 'No event with this id');

export const eventRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/event/',
    summary: 'List events, newest first',
    tag: 'Event',
    query: listQuery,
    response: pageEnvelopeSchema(eventOut),
    status: 200,
    async handler({ env, query, req, baseUrl, db }) {
      const { page, page_size, ...filters } = query;
      const { count, rows } = await listEvents(db, env.id, filters, { page, page_size });
      return pageEnvelope(req, baseUrl, { page, page_size }, count, rows.map(presentEvent));
    },
  }),
  route({
    method: 'get',
    path: '/event/{id}/',
    summary: 'Get an event with its delivery attempts',
    tag: 'Event',
    response: eventDetailOut,
    status: 200,
    async handler({ env, params, db }) {
      const event = await getEvent(db, env.id, params.id!);
      if (!event) throw notFound();
      return presentDetail(event);
    },
  }),
  route({
    method: 'post',
    path: '/event/{id}/retry/',
    summary: 'Deliver the event once more, now',
    tag: 'Event',
    response: eventDetailOut,
    status: 200,
    async handler({ env, params, deps, db }) {
      const result = await retryEvent(db, env.id, params.id!, deps.now());
      if (result === 'not_found') throw notFound();
      if (result === 'in_flight') throw new ApiError('conflict', 'a delivery attempt of this event is in progress; retry once it has finished');
      return presentDetail((await getEvent(db, env.id, params.id!))!);
    },
  }),
];
