import { setTimeout as wait } from 'node:timers/promises';
import { z } from 'zod';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, fieldError, found, notFound } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { eventsAfter, getEvent, listEvents, newestEventId, type StoredEvent } from '../store/event-list';
import { EVENT_TYPES } from '../domain/event-types';
import { type RetryTarget, retryEvent } from '../store/events';
import type { DeliveryAttemptRow, EventDeliveryRow } from '../store/schema';
import { dateTime, dateTimeInput, inLowerCase, livemode } from '../schemas/fields';
import { EVENT_DETAIL_EXAMPLE, EVENT_EXAMPLE, EVENT_POLL_EXAMPLE, page } from './examples';

// Events: every change of every object of the environment, and each delivery of it (to the
// object's notify_url, to each matching webhook endpoint) with every attempt, so a merchant
// can see what happened to an object and why a webhook failed.

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'stopped'] as const;
const statusWords = 'pending: will be tried (again); delivered: a 2xx came back; failed: retries ran out; stopped: the receiver answered 410, or its endpoint was disabled or deleted';

const deliveryOut = z
  .object({
    id: z.uuid().describe('The delivery'),
    destination: z.enum(['notify_url', 'webhook_endpoint']).describe("The object's `notify_url`, or a webhook endpoint"),
    webhook_endpoint: z.uuid().nullable().describe('The `id` of the webhook endpoint; null for the notify_url'),
    url: z.string().describe('Where it is delivered'),
    delivery_status: z.enum(DELIVERY_STATUSES).describe(statusWords),
    attempt_count: z.number().int().describe('Attempts so far'),
    next_attempt: dateTime.nullable().describe('When the next attempt is due; null when none is'),
    delivered: dateTime.nullable().describe('When a 2xx came back'),
  })
  .describe('One destination of the event');

const eventOut = z
  .object({
    id: z.uuid().describe('Also the `webhook-id` of every delivery of this event'),
    livemode,
    type: z.enum(EVENT_TYPES).describe('What happened: `<object>.<change>`'),
    created: dateTime.describe('When it happened (ISO 8601, UTC)'),
    data: z.record(z.string(), z.unknown()).describe('The object as the API returned it when the event happened, with its `livemode`'),
    notify_url: z.string().nullable().describe("The object's notify_url, where it is delivered besides the webhook endpoints; null when it has none"),
    delivery_status: z.enum(DELIVERY_STATUSES).nullable().describe(`The notify_url delivery: ${statusWords}; null without a notify_url`),
    attempt_count: z.number().int().describe('Attempts to deliver it to the notify_url so far'),
    next_attempt: dateTime.nullable().describe('When the next attempt to the notify_url is due; null when none is'),
    delivered: dateTime.nullable().describe('When the notify_url answered a 2xx'),
    deliveries: z.array(deliveryOut).describe('Every destination: the notify_url first, then each webhook endpoint that takes the event'),
  })
  .meta({ id: 'Event', description: 'A change of an object, and its deliveries' });

const attemptOut = z
  .object({
    delivery: z.uuid().describe('The `id` of the delivery this attempt belongs to'),
    attempt: z.number().int().describe('1 for the first attempt of its delivery, and so on'),
    created: dateTime.describe('When the attempt was made'),
    result: z.enum(['delivered', 'failed', 'gone']).describe('delivered: 2xx; failed: anything else; gone: 410'),
    status_code: z.number().int().nullable().describe('The HTTP status the receiver answered'),
    error: z.string().nullable().describe('Why no status came back: timeout, refused address, connection error'),
    response_body: z.string().nullable().describe('The first 1000 characters of the answer'),
    duration_ms: z.number().int().describe('How long the attempt took, in milliseconds'),
  })
  .describe('One delivery attempt');

const eventDetailOut = eventOut
  .extend({ attempts: z.array(attemptOut).describe('Every delivery attempt to every destination, oldest first') })
  .meta({ id: 'EventWithAttempts', description: 'An event with its delivery attempts' });

const presentDelivery = (d: EventDeliveryRow): z.input<typeof deliveryOut> => ({
  id: d.id,
  destination: d.endpoint_id === null ? 'notify_url' : 'webhook_endpoint',
  webhook_endpoint: d.endpoint_id,
  url: d.url,
  delivery_status: d.delivery_status,
  attempt_count: d.attempt_count,
  next_attempt: d.next_attempt_at,
  delivered: d.delivered_at,
});

function presentEvent(row: StoredEvent): z.input<typeof eventOut> {
  return {
    id: row.id,
    type: row.type as (typeof EVENT_TYPES)[number],
    created: row.created_at,
    data: row.payload.data,
    notify_url: row.notify_url,
    delivery_status: row.delivery_status,
    attempt_count: row.attempt_count ?? 0,
    next_attempt: row.next_attempt_at,
    delivered: row.delivered_at,
    // The notify_url first, then the endpoints in the order they were created (their ids are UUIDv7).
    deliveries: [...row.deliveries].sort((a, b) => (a.endpoint_id ?? '').localeCompare(b.endpoint_id ?? '')).map(presentDelivery),
  };
}

const presentDetail = ({ row, attempts }: { row: StoredEvent; attempts: DeliveryAttemptRow[] }) => ({
  ...presentEvent(row),
  attempts: attempts.map((a) => ({
    delivery: a.delivery_id,
    attempt: a.attempt,
    created: a.created_at,
    result: a.result,
    status_code: a.status_code,
    error: a.error,
    response_body: a.response_body,
    duration_ms: a.duration_ms,
  })),
});

/** A client's date-time as stored (ISO 8601 in UTC), so it compares with stored ones as text. */
// The document describes a query parameter by its parsed value: a transform has none of
// its own, so it says what it reads (an ISO 8601 date-time).
const instant = dateTimeInput.transform((s) => new Date(s).toISOString()).meta({ type: 'string', format: 'date-time' });

const listQuery = pageQuery.extend({
  type: z.enum(EVENT_TYPES).optional().describe('Only events of this type'),
  delivery_status: z.enum(DELIVERY_STATUSES).optional().describe('Only events whose notify_url delivery has this status'),
  object_id: z.uuid().overwrite(inLowerCase).optional().describe('Only events about the object with this `id`'),
  created_from: instant.optional().describe('Only events created at or after this date-time (ISO 8601)'),
  created_to: instant.optional().describe('Only events created before this date-time (ISO 8601)'),
});

const POLL_MS = 250;
const NIL_UUID = '00000000-0000-0000-0000-000000000000';

const pollQuery = z.object({
  after: z.uuid().overwrite(inLowerCase).optional().describe('The `cursor` of the previous answer; without it, the answer is the cursor to start from now, with no events'),
  wait: z
    .string()
    .regex(/^[0-9]{1,2}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(0).max(30))
    .default(20)
    .describe('Seconds to wait for an event when none is there yet, 0 to 30; default 20'),
});

const pollOut = z
  .object({
    events: z.array(eventOut).describe('The events made after `after`, oldest first, at most 100'),
    cursor: z.uuid().describe('Pass it as `after` next time'),
  })
  .meta({ id: 'EventPoll', description: 'Events made since a cursor' });

const retryBody = z
  .strictObject({
    destination: z
      .union([z.literal('notify_url'), z.uuid().overwrite(inLowerCase)])
      .optional()
      .describe('`notify_url`, or the `id` of a webhook endpoint: resend to it only. Without it, to every destination not delivered (to all of them when all were)'),
  })
  .meta({ id: 'EventRetryInput', description: 'Which destination to resend to' });


/** The body's `destination` as the store names it: none means every one not delivered. */
function retryTargetOf(destination: z.output<typeof retryBody>['destination']): RetryTarget {
  if (destination === undefined) return { destination: 'failed' };
  return destination === 'notify_url' ? { destination: 'notify_url' } : { destination: 'endpoint', endpointId: destination };
}

function listRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/event/',
    operationId: 'listEvents',
    description:
      'Every change of every object of your environment, newest first, whether or not it was delivered anywhere; filter by type, the notify_url delivery status, the object, or when it was created. Events are kept 30 days.',
    example: { response: page([EVENT_EXAMPLE]) },
    summary: 'List events, newest first',
    tag: 'Event',
    query: listQuery,
    response: pageEnvelopeSchema(eventOut),
    status: 200,
    handler: (ctx) => listPage(ctx, (filters, p) => listEvents(ctx.db, ctx.env.id, filters, p), presentEvent),
  });
}

function pollRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/event/poll/',
    operationId: 'pollEvents',
    description:
      'Long poll: the events made after `after`, oldest first, as soon as there is one (or an empty list after `wait` seconds). Call it again with the `cursor` it answers to follow your events as they happen (`npm run listen` does). Start without `after` to get the cursor of now.',
    example: { response: EVENT_POLL_EXAMPLE },
    summary: 'Wait for new events',
    tag: 'Event',
    query: pollQuery,
    response: pollOut,
    status: 200,
    async handler({ env, query, req, db }) {
      // Before any event, the nil UUID: every event id comes after it.
      if (query.after === undefined) return { events: [], cursor: (await newestEventId(db, env.id)) ?? NIL_UUID };
      const until = Date.now() + query.wait * 1000;
      const gone = new AbortController();
      req.once('close', () => gone.abort());
      for (;;) {
        const events = await eventsAfter(db, env.id, query.after, 100);
        if (events.length || Date.now() >= until || gone.signal.aborted) {
          return { events: events.map(presentEvent), cursor: events.at(-1)?.id ?? query.after };
        }
        await wait(POLL_MS, undefined, { signal: gone.signal }).catch(() => undefined);
      }
    },
  });
}

function getRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/event/{id}/',
    operationId: 'getEvent',
    description: 'One event with every delivery attempt to every destination, to see why a webhook failed.',
    example: { response: EVENT_DETAIL_EXAMPLE },
    summary: 'Get an event with its delivery attempts',
    tag: 'Event',
    response: eventDetailOut,
    status: 200,
    async handler({ env, params, db }) {
      const event = found(await getEvent(db, env.id, params.id!), 'event');
      return presentDetail(event);
    },
  });
}

function retryRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/event/{id}/retry/',
    operationId: 'retryEvent',
    description:
      'Delivers the event once more, now: to the destination named in the body whatever its status, or else to every destination not delivered (every one when all were), leaving out webhook endpoints disabled or deleted since. An attempt in progress, an event with no destination at all, or only disabled or deleted endpoints to send to, is a 409; a destination the event has no delivery for is a 400.',
    example: { request: { destination: 'notify_url' }, response: EVENT_DETAIL_EXAMPLE },
    summary: 'Deliver the event once more, now',
    tag: 'Event',
    body: retryBody,
    response: eventDetailOut,
    status: 200,
    async handler({ env, params, body, deps, db }) {
      const result = await retryEvent(db, env.id, params.id!, deps.now(), retryTargetOf(body.destination));
      if (result === 'not_found') throw notFound('event');
      if (result === 'in_flight') throw new ApiError('conflict', 'a delivery attempt of this event is in progress; retry once it has finished');
      if (result === 'endpoint_off') throw new ApiError('conflict', "the event's webhook endpoint is disabled or deleted: nothing would be sent; enable it, then retry");
      if (result === 'no_destination') {
        if (body.destination !== undefined) throw fieldError('destination', 'the event has no delivery to this destination');
        throw new ApiError('conflict', 'the event has no destination: its object had no notify_url and no webhook endpoint took it');
      }
      return presentDetail((await getEvent(db, env.id, params.id!))!);
    },
  });
}

export const eventRoutes = (): RouteDef[] => [
  listRoute(),
  // Before /event/{id}/: `poll` is not an id.
  pollRoute(),
  getRoute(),
  retryRoute(),
];
