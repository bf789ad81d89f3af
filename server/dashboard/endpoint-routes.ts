import express, { type IRouter, type Request, type Response } from 'express';
import { z } from 'zod';
import { EVENT_TYPES } from '../domain/event-types';
import { attemptEvent, listEndpointAttempts } from '../store/endpoint-attempts';
import { getEndpoint, listEndpoints, type StoredEndpoint } from '../store/webhook-endpoints';
import type { ActiveSession } from './accounts';
import { type WebhookEndpointChanges, webhookEndpointChanges } from '../commands/webhook-endpoint-changes';
import { endpointInput, endpointValues, postedValues, rollInput } from './endpoint-form';
import { deleteConfirmPage, endpointNewPage, type EndpointNotice, endpointPage, endpointsPage, type Errors } from './endpoint-pages';
import { resendEvent } from './event-resend';
import type { Kit } from './kit';

// /dashboard/webhook-endpoints/: the environment's webhook endpoints. Viewers see them;
// admins and owners create, edit, enable / disable, delete (confirmed once more) and roll
// the secret (shown once), through the API's use cases (commands/), so the rules
// and the `webhook_endpoint.*` events are the API's. The audit log records each change,
// never the secret. An endpoint's page lists its recent attempts, and admins send the
// delivery of a failed one again (event-resend.ts, as an event's page does).

const PAGE_SIZE = 20;
const ATTEMPTS_PAGE = 20;
const ID = /^[0-9a-f-]{36}$/;
const BASE = '/dashboard/webhook-endpoints/';
const pageQuery = z.object({ page: z.coerce.number().int().min(1).max(100_000).default(1).catch(1) });
const doneQuery = z.object({ done: z.enum(['saved', 'enabled', 'disabled', 'deleted', 'resent']) });
/** The attempts' page after the attempt `before`; anything else is the newest. */
const attemptsQuery = z.object({ before: z.uuid().optional().catch(undefined) });
const enabledForm = z.object({ enabled: z.enum(['true', 'false']) });
const deleteForm = z.object({ confirm: z.literal('yes').optional() });

const logged = (e: StoredEndpoint) => ({ id: e.id, url: e.url });

/** What the endpoint pages and the actions on one endpoint share. */
function shared(kit: Kit) {
  const { db, send, textOf, notFound } = kit;
  // A checkbox per event type: more fields than the other forms' parser allows.
  const forms = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: EVENT_TYPES.length + 8 });
  const find = (s: ActiveSession, id: string) => (ID.test(id) ? getEndpoint(db, s.current.environment_id, id) : Promise.resolve(undefined));
  const done = (req: Request) => {
    const parsed = doneQuery.safeParse(req.query);
    return parsed.success ? parsed.data.done : undefined;
  };
  /** The endpoint's page with its attempts; after a refused edit, with what was posted and why it was refused; or after a refused action, saying why. */
  async function show(req: Request, res: Response, s: ActiveSession, status: number, refused?: { errors: Errors; posted: boolean } | { notice: EndpointNotice }) {
    const endpoint = await find(s, String(req.params.id));
    if (!endpoint) return notFound(req, res);
    const edit = refused && 'errors' in refused ? refused : undefined;
    const values = edit?.posted ? postedValues(req.body) : endpointValues(endpoint);
    const { before } = attemptsQuery.parse(req.query);
    const attempts = { ...(await listEndpointAttempts(db, s.current.environment_id, endpoint.id, { limit: ATTEMPTS_PAGE, before })), later: !!before };
    const notice = !refused ? done(req) : 'notice' in refused ? refused.notice : undefined;
    send(res, status, endpointPage({ text: textOf(req), session: s, endpoint, values, errors: edit?.errors ?? [], notice, attempts }));
  }
  return { forms, find, done, show };
}

type Shared = ReturnType<typeof shared>;

export function endpointRoutes(router: IRouter, kit: Kit): void {
  const common = shared(kit);
  const changes = webhookEndpointChanges(kit.deps);
  endpointPages(router, kit, changes, common);
  endpointActions(router, kit, changes, common);
  attemptActions(router, kit, common);
}

/** The list, a new endpoint, one endpoint and its edit. */
function endpointPages(router: IRouter, kit: Kit, changes: WebhookEndpointChanges, { forms, done, show }: Shared): void {
  const { db, page, action, send, textOf, audit, notFound } = kit;

  router.get('/webhook-endpoints/', page('viewer', async (req, res, s) => {
    const { page: pageNo } = pageQuery.parse(req.query);
    const { count, rows } = await listEndpoints(db, s.current.environment_id, { page: pageNo, page_size: PAGE_SIZE });
    send(res, 200, endpointsPage({ text: textOf(req), session: s, endpoints: rows, page: pageNo, pages: Math.max(1, Math.ceil(count / PAGE_SIZE)), done: done(req) }));
  }));

  router.get('/webhook-endpoints/new/', page('admin', async (req, res, s) => {
    send(res, 200, endpointNewPage({ text: textOf(req), session: s, values: { url: '', description: '', events: ['*'] }, errors: [] }));
  }));

  router.post('/webhook-endpoints/', forms, action('admin', async (req, res, s) => {
    const values = postedValues(req.body);
    const outcome = await changes.create(s.current.environment_id, endpointInput(values));
    if (!outcome.ok) return send(res, 400, endpointNewPage({ text: textOf(req), session: s, values, errors: outcome.errors }));
    await audit(req, s, 'webhook_endpoint_created', logged(outcome.endpoint));
    // The secret is in this answer only, as a new API key's is.
    send(res, 201, endpointPage({ text: textOf(req), session: s, endpoint: outcome.endpoint, values: endpointValues(outcome.endpoint), errors: [], secret: outcome.endpoint.secret, notice: 'created' }));
  }));

  router.get('/webhook-endpoints/:id/', page('viewer', (req, res, s) => show(req, res, s, 200)));

  router.post('/webhook-endpoints/:id/', forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    const outcome = ID.test(id) ? await changes.change(s.current.environment_id, id, endpointInput(postedValues(req.body))) : undefined;
    if (!outcome) return notFound(req, res);
    if (!outcome.ok) return show(req, res, s, 400, { errors: outcome.errors, posted: true });
    await audit(req, s, 'webhook_endpoint_updated', logged(outcome.endpoint));
    res.redirect(303, `${BASE}${id}/?done=saved`);
  }));
}

/** Enabling or disabling an endpoint, rolling its secret, deleting it. */
function endpointActions(router: IRouter, kit: Kit, changes: WebhookEndpointChanges, { forms, find, show }: Shared): void {
  const { action, send, textOf, audit, notFound } = kit;
  router.post('/webhook-endpoints/:id/enabled/', forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    const form = enabledForm.safeParse(req.body);
    if (!(await find(s, id))) return notFound(req, res);
    if (!form.success) return show(req, res, s, 400, { errors: [], posted: false });
    const outcome = await changes.change(s.current.environment_id, id, { enabled: form.data.enabled === 'true' });
    if (!outcome) return notFound(req, res);
    if (!outcome.ok) return show(req, res, s, 400, { errors: outcome.errors, posted: false });
    const change = outcome.endpoint.enabled ? 'enabled' : 'disabled';
    await audit(req, s, `webhook_endpoint_${change}`, logged(outcome.endpoint));
    res.redirect(303, `${BASE}${id}/?done=${change}`);
  }));

  router.post('/webhook-endpoints/:id/roll/', forms, action('admin', async (req, res, s) => {
    const id = String(req.params.id);
    const outcome = ID.test(id) ? await changes.rollSecret(s.current.environment_id, id, rollInput(req.body)) : undefined;
    if (!outcome) return notFound(req, res);
    if (!outcome.ok) return show(req, res, s, 400, { errors: outcome.errors, posted: false });
    const hours = String(rollInput(req.body).overlap_hours);
    await audit(req, s, 'webhook_endpoint_secret_rolled', { ...logged(outcome.endpoint), hours });
    const { endpoint } = outcome;
    send(res, 200, endpointPage({ text: textOf(req), session: s, endpoint, values: endpointValues(endpoint), errors: [], secret: endpoint.secret, notice: 'rolled' }));
  }));

  router.post('/webhook-endpoints/:id/delete/', forms, action('admin', async (req, res, s) => {
    const endpoint = await find(s, String(req.params.id));
    if (!endpoint) return notFound(req, res);
    const form = deleteForm.safeParse(req.body);
    if (!form.success || form.data.confirm !== 'yes') return send(res, 200, deleteConfirmPage({ text: textOf(req), session: s, endpoint }));
    if (await changes.remove(s.current.environment_id, endpoint.id)) await audit(req, s, 'webhook_endpoint_deleted', logged(endpoint));
    res.redirect(303, `${BASE}?done=deleted`);
  }));
}

/**
 * "Send again" on one of the endpoint's attempts: its event's delivery to this endpoint is
 * queued now, through the resend an event's page makes to one destination (the API's
 * retry), audited the same way. Refused while an attempt of it is in progress.
 */
function attemptActions(router: IRouter, kit: Kit, { forms, find, show }: Shared): void {
  const { db, action, notFound } = kit;
  router.post('/webhook-endpoints/:id/attempts/:attempt/retry/', forms, action('admin', async (req, res, s) => {
    const endpoint = await find(s, String(req.params.id));
    const attempt = String(req.params.attempt);
    const event = endpoint && ID.test(attempt) ? await attemptEvent(db, s.current.environment_id, endpoint.id, attempt) : undefined;
    if (!endpoint || !event) return notFound(req, res);
    const result = await resendEvent(kit, req, s, event, endpoint.id);
    if (result === 'in_flight') return show(req, res, s, 409, { notice: 'busy' });
    // Found a moment ago: only a purge of the event meanwhile leaves nothing to send.
    if (result !== 'retried') return notFound(req, res);
    res.redirect(303, `${BASE}${endpoint.id}/?done=resent`);
  }));
}
