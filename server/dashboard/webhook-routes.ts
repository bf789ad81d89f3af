import type { IRouter, Request, Response } from 'express';
import { z } from 'zod';
import { listDeliveries } from '../store/delivery-list';
import { getEvent } from '../store/event-list';
import { retryEvent } from '../store/events';
import type { ActiveSession } from './accounts';
import type { Kit } from './kit';
import { webhookPage, webhooksPage } from './webhook-pages';

// /dashboard/webhooks/: where the environment's events were sent and how each last answered,
// each attempt, and a resend through the same store function as the API's POST
// /v1/event/{id}/retry/ (an event sent nowhere has nothing to resend: 409, as the API).

const PAGE_SIZE = 20;
const ID = /^[0-9a-f-]{36}$/;
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });

export function webhookRoutes(router: IRouter, kit: Kit): void {
  const { db, deps, forms, page, action, send, textOf, audit, notFound } = kit;

  async function show(req: Request, res: Response, s: ActiveSession, status = 200, notice?: string) {
    const id = String(req.params.id);
    const found = ID.test(id) ? await getEvent(db, s.current.environment_id, id) : undefined;
    if (!found) return notFound(req, res);
    const { payload, ...event } = found.row;
    send(res, status, webhookPage({ text: textOf(req), session: s, event, body: JSON.stringify(payload, null, 2), attempts: found.attempts, notice }));
  }

  router.get('/webhooks/', page('viewer', async (req, res, s) => {
    const { page: pageNo } = pageQuery.parse(req.query);
    const { count, rows } = await listDeliveries(db, s.current.environment_id, { page: pageNo, page_size: PAGE_SIZE });
    send(res, 200, webhooksPage({ text: textOf(req), session: s, deliveries: rows, page: pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)) }));
  }));

  router.get('/webhooks/:id/', page('viewer', async (req, res, s) => {
    await show(req, res, s, 200, req.query.resent === '1' ? textOf(req).t('wh.resent') : undefined);
  }));

  router.post('/webhooks/:id/resend/', forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    const result = ID.test(id) ? await retryEvent(db, s.current.environment_id, id, deps.now()) : 'not_found';
    if (result === 'not_found') return notFound(req, res);
    if (result === 'in_flight') return show(req, res, s, 409, textOf(req).t('wh.busy'));
    if (result === 'no_destination') return show(req, res, s, 409, textOf(req).t('wh.nowhere'));
    if (result === 'endpoint_off') return show(req, res, s, 409, textOf(req).t('wh.endpointOff'));
    await audit(req, s, 'webhook_resent', { event: id });
    res.redirect(303, `/dashboard/webhooks/${id}/?resent=1`);
  }));
}
