import { z } from 'zod';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { found, notFound } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { presentEndpoint } from '../present/webhook-endpoint';
import { EVENT_TYPES } from '../domain/event-types';
import { getEndpoint, listEndpoints, type StoredEndpoint } from '../store/webhook-endpoints';
import { patchOf } from '../schemas/catalogue';
import { dateTime, livemode, objectId, timestamps } from '../schemas/fields';
import { changeWebhookEndpoint, createWebhookEndpoint, deleteWebhookEndpoint, endpointFields, rollBody, rollWebhookEndpointSecret } from '../commands/webhook-endpoint-changes';
import { page, WEBHOOK_ENDPOINT_EXAMPLE, WEBHOOK_ENDPOINT_REQUEST, WEBHOOK_ENDPOINT_WITH_SECRET_EXAMPLE } from './examples';

// Webhook endpoints: URLs that receive the environment's events (all of them, or the types
// listed), each signed with the endpoint's own secret, besides each object's notify_url.

export const endpointOut = z
  .object({
    id: objectId,
    livemode,
    url: z.string().describe('Where events are POSTed'),
    description: z.string().nullable().describe('What it is for'),
    enabled_events: z.array(z.enum([...EVENT_TYPES, '*'])).describe('The event types sent to it, or `["*"]` for every one'),
    enabled: z.boolean().describe('Whether events are sent to it'),
    disabled_reason: z
      .enum(['failing'])
      .nullable()
      .describe('`failing`: the service disabled it after every delivery failed for 3 days (a `webhook_endpoint.disabled` event says so); null otherwise'),
    secret_rolled_until: dateTime.nullable().describe('After a roll of its secret: until when the previous secret signs too'),
    ...timestamps,
  })
  .meta({ id: 'WebhookEndpoint', description: 'A URL that receives the events of your environment' });

const endpointWithSecret = endpointOut
  .extend({
    secret: z.string().describe('The signing secret (`whsec_…`, Standard Webhooks): shown only in this answer, keep it'),
  })
  .meta({ id: 'WebhookEndpointWithSecret', description: 'A webhook endpoint with its signing secret, shown once' });

const TAG = 'Webhook endpoint';

const withSecret = (e: StoredEndpoint) => ({ ...presentEndpoint(e), secret: e.secret });

function listRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/webhook_endpoint/',
    operationId: 'listWebhookEndpoints',
    summary: 'List webhook endpoints, newest first',
    description: 'The webhook endpoints of your environment, newest first; secrets are not shown.',
    example: { response: page([WEBHOOK_ENDPOINT_EXAMPLE]) },
    tag: TAG,
    query: pageQuery,
    response: pageEnvelopeSchema(endpointOut),
    status: 200,
    handler: (ctx) => listPage(ctx, (_, p) => listEndpoints(ctx.db, ctx.env.id, p), presentEndpoint),
  });
}

function createRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/webhook_endpoint/',
    operationId: 'createWebhookEndpoint',
    summary: 'Create a webhook endpoint',
    description:
      'Every event of the types it lists is POSTed to it from now on, signed (Standard Webhooks) with its own secret, which this answer shows once.',
    example: { request: WEBHOOK_ENDPOINT_REQUEST, response: WEBHOOK_ENDPOINT_WITH_SECRET_EXAMPLE },
    tag: TAG,
    body: endpointFields,
    response: endpointWithSecret,
    status: 201,
    handler: async ({ env, body, deps, db }) => withSecret(await createWebhookEndpoint(deps, db, env.id, body)),
  });
}

function getRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/webhook_endpoint/{id}/',
    operationId: 'getWebhookEndpoint',
    summary: 'Get a webhook endpoint',
    description: 'One webhook endpoint, without its secret.',
    example: { response: WEBHOOK_ENDPOINT_EXAMPLE },
    tag: TAG,
    response: endpointOut,
    status: 200,
    async handler({ env, params, db }) {
      const endpoint = found(await getEndpoint(db, env.id, params.id!), 'webhook endpoint');
      return presentEndpoint(endpoint);
    },
  });
}

function updateRoute(): RouteDef {
  return route({
    method: 'patch',
    path: '/webhook_endpoint/{id}/',
    operationId: 'updateWebhookEndpoint',
    summary: 'Change fields of a webhook endpoint',
    description: 'Changes the fields sent (at least one). `enabled: true` enables an endpoint the service disabled, for the events from then on.',
    example: { request: { enabled_events: ['*'] }, response: WEBHOOK_ENDPOINT_EXAMPLE },
    tag: TAG,
    body: patchOf(endpointFields),
    response: endpointOut,
    status: 200,
    async handler({ env, params, body, deps, db }) {
      const updated = found(await changeWebhookEndpoint(deps, db, env.id, params.id!, body as Partial<z.output<typeof endpointFields>>), 'webhook endpoint');
      return presentEndpoint(updated);
    },
  });
}

function deleteRoute(): RouteDef {
  return route({
    method: 'delete',
    path: '/webhook_endpoint/{id}/',
    operationId: 'deleteWebhookEndpoint',
    summary: 'Delete a webhook endpoint',
    description: 'Deletes it: nothing more is sent to it, deliveries not yet made are stopped; the events keep its deliveries so far.',
    example: {},
    tag: TAG,
    status: 204,
    async handler({ env, params, deps, db }) {
      if (!(await deleteWebhookEndpoint(deps, db, env.id, params.id!))) throw notFound('webhook endpoint');
    },
  });
}

function rollSecretRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/webhook_endpoint/{id}/roll_secret/',
    operationId: 'rollWebhookEndpointSecret',
    summary: 'Roll the signing secret of a webhook endpoint',
    description:
      'Makes a new secret, shown once in this answer. For `overlap_hours` (default 24) every delivery is signed with both, two signatures in `webhook-signature`, so receivers can switch without losing a delivery; then with the new one only.',
    example: { request: { overlap_hours: 24 }, response: { ...WEBHOOK_ENDPOINT_WITH_SECRET_EXAMPLE, secret_rolled_until: '2026-01-02T10:00:00.000Z' } },
    tag: TAG,
    body: rollBody,
    response: endpointWithSecret,
    status: 200,
    async handler({ env, params, body, deps, db }) {
      const rolled = found(await rollWebhookEndpointSecret(deps, db, env.id, params.id!, body.overlap_hours), 'webhook endpoint');
      return withSecret(rolled);
    },
  });
}

export const webhookEndpointRoutes = (): RouteDef[] => [
  listRoute(),
  createRoute(),
  getRoute(),
  updateRoute(),
  deleteRoute(),
  rollSecretRoute(),
];
