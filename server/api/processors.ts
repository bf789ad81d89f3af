import { z } from 'zod';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, found, notFound } from '../http/problem';
import { route, type RouteContext, type RouteDef } from '../http/route';
import { processorChangeInput, processorInput } from '../payments/processor-input';
import { changeProcessor, connectProcessor, disconnectProcessor, PROCESSOR_GATEWAY_IDS, type ProcessorOutcome, processorWebhookUrl } from '../payments/processors';
import { getProcessor, listProcessors, type StoredProcessor } from '../store/processors';
import { PROCESSOR_TYPES } from '../store/schema';
import { livemode, objectId, timestamps } from '../schemas/fields';
import { page, PROCESSOR_EXAMPLE, PROCESSOR_REQUEST } from './examples';

// Processors: the merchant's own processor accounts connected to the environment (Stripe and
// Redsys; docs/processors.md#connecting-stripe, #connecting-redsys). The credentials are write-only: sealed at
// rest, never in an answer or a log; an answer shows the secret key's last four characters.
// Connecting, and replacing the secret key, ask the processor once whether the key works,
// so those handlers run outside the database transaction of an Idempotency-Key (a call to
// the processor is never made inside one), as the routes that move money do.

const processorOut = z
  .object({
    id: objectId,
    type: z.enum(PROCESSOR_TYPES).describe('The processor: `stripe` or `redsys`'),
    livemode,
    gateways: z.array(z.string()).describe('The ids of the gateways it brings (`GET /gateway/`), the same in every environment; offered to new payments while it is connected'),
    webhook_url: z.string().describe('Where the processor’s events reach this service: register it at Stripe (Developers → Webhooks); Redsys is given it with each payment (its notification URL)'),
    secret_key_last4: z.string().describe('The last four characters of the secret key connected: the key itself is never shown'),
    statement_descriptor: z.string().nullable().describe('What customers’ bank statements show; null: the account’s own'),
    ...timestamps,
  })
  .meta({ id: 'Processor', description: 'A processor account of yours connected to this environment; its credentials are never shown' });

const createBody = processorInput.meta({ id: 'ProcessorInput', description: 'A processor account to connect, with its credentials' });
const changeBody = processorChangeInput.meta({ id: 'ProcessorChangeInput', description: 'Rotated keys, a new webhook signing secret or statement descriptor: at least one field', minProperties: 1 });

const TAG = 'Processor';

const present = (baseUrl: string) => (p: StoredProcessor) => ({
  id: p.id,
  type: p.type,
  gateways: [...PROCESSOR_GATEWAY_IDS[p.type]],
  webhook_url: processorWebhookUrl(baseUrl, p.id),
  secret_key_last4: p.secret_key_last4,
  statement_descriptor: p.statement_descriptor,
  created: p.created_at,
  updated: p.updated_at,
});

/** The answer of a connect or a change, or its problem. */
function answered(ctx: RouteContext<unknown, unknown>, outcome: ProcessorOutcome) {
  if (outcome.ok) return present(ctx.baseUrl)(outcome.processor);
  switch (outcome.problem) {
    case 'invalid':
      throw new ApiError('invalid_request', outcome.errors.map((e) => `${e.path}: ${e.message}`).join('; '), outcome.errors);
    case 'taken':
      throw new ApiError('conflict', `type: this environment already has a ${outcome.type} processor connected; change its keys with PATCH, or delete it first`);
    case 'unreachable':
      throw new ApiError('gateway_error', `${outcome.message}: the key could not be checked, and nothing was stored. Try again.`);
    case 'urls_in_live':
      throw new ApiError('conflict', 'This service sends processor requests to a test double (STRIPE_API_URL or REDSYS_URL, for tests only): a live environment cannot connect a processor here');
    case 'changed':
      throw new ApiError('conflict', 'The processor was changed by another request at the same time: nothing was written; read it and send the change again');
  }
}

const envOf = (ctx: RouteContext<unknown, unknown>) => ({ id: ctx.env.id, live: ctx.env.mode === 'live' });

function listRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/processor/',
    operationId: 'listProcessors',
    summary: 'List connected processors, newest first',
    description: 'The processors connected to your environment, newest first; deleted ones are not listed. Credentials are never shown.',
    example: { response: page([PROCESSOR_EXAMPLE]) },
    tag: TAG,
    query: pageQuery,
    response: pageEnvelopeSchema(processorOut),
    status: 200,
    handler: (ctx) => listPage(ctx, (_, p) => listProcessors(ctx.db, ctx.env.id, p), present(ctx.baseUrl)),
  });
}

function createRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/processor/',
    operationId: 'createProcessor',
    summary: 'Connect a processor account',
    description:
      'Connects your own Stripe account or Redsys terminal: its gateways are offered to new payments of this environment from now on. Stripe: test keys (`sk_test_…`, `rk_test_…`, `pk_test_…`) connect to a sandbox environment only, live keys to a live one only (400 naming the field); the secret key is checked with one call to Stripe, and a key Stripe refuses is a 400 naming `secret_key`; register `webhook_url` at Stripe for its events. Redsys: a sandbox uses Redsys’s test host, a live environment its production host, and Redsys’s published test terminal (merchant 999008881) is refused in live (400 naming the field); one query to Redsys finds whether your bank enabled the query service, and a key or terminal Redsys refuses is a 400 naming the field. When the processor cannot be reached the answer is a 502 and nothing is stored. One processor of a type per environment: a second is a 409 naming `type`.',
    example: { request: PROCESSOR_REQUEST, response: PROCESSOR_EXAMPLE },
    tag: TAG,
    body: createBody,
    response: processorOut,
    status: 201,
    problems: [502],
    // It asks Stripe: never inside the transaction that keeps an Idempotency-Key's answer.
    movesMoney: true,
    handler: async (ctx) => answered(ctx, await connectProcessor(ctx.deps, envOf(ctx), ctx.body)),
  });
}

function getRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/processor/{id}/',
    operationId: 'getProcessor',
    summary: 'Get a connected processor',
    description: 'One processor of your environment, without its credentials; a deleted one is not found.',
    example: { response: PROCESSOR_EXAMPLE },
    tag: TAG,
    response: processorOut,
    status: 200,
    async handler({ env, params, db, baseUrl }) {
      return present(baseUrl)(found(await getProcessor(db, env.id, params.id!), 'processor'));
    },
  });
}

function updateRoute(): RouteDef {
  return route({
    method: 'patch',
    path: '/processor/{id}/',
    operationId: 'updateProcessor',
    summary: 'Replace rotated keys or the webhook secret of a processor',
    description:
      'Replaces the fields sent (at least one), those of the processor’s type only (another type’s field is a 400 naming it). Stripe: a rolled secret or publishable key, a new webhook signing secret, the statement descriptor. Redsys: a new `secret_key` or `signature_version`. New payments use them at once. A new key (or Redsys signature version) is checked with one call to the processor first (a refusal is a 400 naming it, an unreachable processor a 502: nothing is changed either way).',
    example: { request: { secret_key: PROCESSOR_REQUEST.secret_key.replace(/1234$/, '5678') }, response: { ...PROCESSOR_EXAMPLE, secret_key_last4: '5678' } },
    tag: TAG,
    body: changeBody,
    response: processorOut,
    status: 200,
    problems: [409, 502],
    async handler(ctx) {
      const outcome = await changeProcessor(ctx.deps, envOf(ctx), ctx.params.id!, ctx.body);
      return answered(ctx, found(outcome, 'processor'));
    },
  });
}

function deleteRoute(): RouteDef {
  return route({
    method: 'delete',
    path: '/processor/{id}/',
    operationId: 'deleteProcessor',
    summary: 'Disconnect a processor',
    description:
      'Its gateways are offered to no new payment from this moment. Its credentials are kept, sealed, for the refunds, lookups, disputes and saved cards of the payments it already took; it is no longer listed, and a processor of the same type can be connected again.',
    example: {},
    tag: TAG,
    status: 204,
    async handler({ env, params, deps }) {
      if (!(await disconnectProcessor(deps, env.id, params.id!))) throw notFound('processor');
    },
  });
}

export const processorRoutes = (): RouteDef[] => [listRoute(), createRoute(), getRoute(), updateRoute(), deleteRoute()];
