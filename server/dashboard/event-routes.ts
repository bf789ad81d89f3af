import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { getEvent, listEvents } from '../store/event-list';
import { EVENT_TYPES } from '../domain/event-types';
import { getEndpoint } from '../store/webhook-endpoints';
import type { ActiveSession } from './accounts';
import { eventPage, type EventNotice, eventsPage } from './event-pages';
import { resendEvent } from './event-resend';
import type { Kit } from './kit';

// /dashboard/events/: the environment's events as GET /v1/event/ lists them (the same
// store function), newest first, by type and by object; one event with its payload, the
// object it is about and each delivery; a resend through the store's `retryEvent`, the
// function behind POST /v1/event/{id}/retry/ (event-resend.ts).

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const UUID = z.uuid();
const listQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1),
  type: z.enum(EVENT_TYPES).optional().catch(undefined),
  object_id: z.string().trim().max(100).optional().catch(undefined),
});
/** Empty: every destination not delivered (every one when all were), as the API does without `destination`. */
const retryForm = z.object({ destination: z.union([z.literal(''), z.literal('notify_url'), UUID]).default('') });

export function eventRoutes(router: IRouter, kit: Kit): void {
  const { db, forms, page, action, send, textOf, notFound } = kit;

  router.get('/events/', page('viewer', async (req, res, s) => {
    const q = listQuery.parse(req.query);
    // An object id that is not an id filters nothing, and says so.
    const objectId = q.object_id && UUID.safeParse(q.object_id).success ? q.object_id : undefined;
    const filters = { type: q.type, object_id: objectId };
    const { count, rows } = await listEvents(db, s.current.environment_id, filters, { page: q.page, page_size: PAGE_SIZE });
    const pages = Math.max(1, Math.ceil(count / PAGE_SIZE));
    send(res, 200, eventsPage({ text: textOf(req), session: s, events: rows, filters, typed: q.object_id ?? '', badObject: !!q.object_id && !objectId, page: q.page, pages }));
  }));

  async function show(req: Request, res: Response, s: ActiveSession, status: number, notice?: EventNotice) {
    const id = String(req.params.id);
    const found = ID.test(id) ? await getEvent(db, s.current.environment_id, id) : undefined;
    if (!found) return notFound(req, res);
    // Which endpoints still exist, to link their deliveries (and an event about one) to them.
    const about = found.row.type.startsWith('webhook_endpoint.') ? [found.row.object_id] : [];
    const ids = [...new Set([...about, ...found.row.deliveries.flatMap((d) => (d.endpoint_id ? [d.endpoint_id] : []))])];
    const live = new Set((await Promise.all(ids.map((e) => getEndpoint(db, s.current.environment_id, e)))).flatMap((e) => (e ? [e.id] : [])));
    send(res, status, eventPage({ text: textOf(req), session: s, event: found.row, attempts: found.attempts.length, endpoints: live, notice }));
  }

  router.get('/events/:id/', page('viewer', (req, res, s) => show(req, res, s, 200, req.query.resent === '1' ? 'resent' : undefined)));

  router.post('/events/:id/retry/', forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    if (!ID.test(id)) return notFound(req, res);
    const form = retryForm.safeParse(req.body);
    // A destination that is neither `notify_url` nor an id: none of this event's.
    if (!form.success) return (await getEvent(db, s.current.environment_id, id)) ? show(req, res, s, 400, 'noDestination') : notFound(req, res);
    const { destination } = form.data;
    const result = await resendEvent(kit, req, s, id, destination);
    if (result === 'not_found') return notFound(req, res);
    if (result === 'in_flight') return show(req, res, s, 409, 'busy');
    // As the API answers: a destination the event has no delivery for is a 400, an event delivered nowhere a 409.
    if (result === 'no_destination') return show(req, res, s, destination === '' ? 409 : 400, 'noDestination');
    if (result === 'endpoint_off') return show(req, res, s, 409, 'endpointOff');
    res.redirect(303, `/dashboard/events/${id}/?resent=1`);
  }));
}
