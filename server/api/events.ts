import { z } from 'zod';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { EVENT_TYPES, getEvent, listEvents, retryEvent, type StoredEvent } from '../store/events';
import type { DeliveryAttemptRow } from '../store/schema';
import { dateTime } from './fields';
import { EVENT_DETAIL_EXAMPLE, EVENT_EXAMPLE, page } from './examples';

// Events: the notifications the service sent (or is sending) to the merchant's
// notify_urls, with every delivery attempt, so a merchant can see why a webhook failed.

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'stopped'] as const;

const eventOut = z
  .object({
    id: z.uuid().describe('Also the `webhook-id` of every delivery of this event'),
    type: z.enum(EVENT_TYPES).describe('What happened: `<object>.<change>`'),
    created: dateTime.describe('When it happened (ISO 8601, UTC)'),
    data: z.record(z.string(), z.unknown()).describe('The object as the API returned it when the event happened'),
    notify_url: z.string().describe('Where it is delivered'),
    delivery_status: z
      .enum(DELIVERY_STATUSES)
      .describe('pending: will be tried (again); delivered: a 2xx came back; failed: retries ran out; stopped: the receiver answered 410'),
    attempt_count: z.number().int().describe('Delivery attempts so far'),
    next_attempt: dateTime.nullable().describe('When the next attempt is due; null when none is'),
    delivered: dateTime.nullable().describe('When a 2xx came back'),
  })
  .meta({ id: 'Event', description: 'A notification sent to a `notify_url`' });

const attemptOut = z.object({
  attempt: z.number().int().describe('1 for the first attempt, and so on'),
  created: dateTime.describe('When the attempt was made'),
  result: z.enum(['delivered', 'failed', 'gone']).describe('delivered: 2xx; failed: anything else; gone: 410'),
  status_code: z.number().int().nullable().describe('The HTTP status the receiver answered'),
  error: z.string().nullable().describe('Why no status came back: timeout, refused address, connection error'),
  response_body: z.string().nullable().describe('The first 1000 characters of the answer'),
  duration_ms: z.number().int().describe('How long the attempt took, in milliseconds'),
}).describe('One delivery attempt');

const eventDetailOut = eventOut
  .extend({ attempts: z.array(attemptOut).describe('Every delivery attempt, oldest first') })
  .meta({ id: 'EventWithAttempts', description: 'A notification with its delivery attempts' });

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
  type: z.enum(EVENT_TYPES).optional().describe('Only events of this type'),
  delivery_status: z.enum(DELIVERY_STATUSES).optional().describe('Only events with this delivery status'),
  object_id: z.uuid().optional().describe('Only events about the object with this `id`'),
});

const notFound = () => new ApiError('not_found', 'No event with this id');

export const eventRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/event/',
    operationId: 'listEvents',
    description: 'The notifications of your environment, newest first; filter by type, delivery status or the object they are about.',
    example: { response: page([EVENT_EXAMPLE]) },
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
    operationId: 'getEvent',
    description: 'One event with every delivery attempt, to see why a webhook failed.',
    example: { response: EVENT_DETAIL_EXAMPLE },
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
    operationId: 'retryEvent',
    description: 'Delivers the event once more, now, whatever its delivery status; an attempt in progress is a 409. Takes no body.',
    example: { response: EVENT_DETAIL_EXAMPLE },
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
