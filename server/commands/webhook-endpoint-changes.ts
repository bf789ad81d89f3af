import { z } from 'zod';
import type { Deps } from '../deps';
import { ApiError, type FieldError, zodErrors } from '../http/problem';
import { inTransaction, type Db } from '../store/db';
import { EVENT_TYPES } from '../domain/event-types';
import { stopEndpointDeliveries } from '../store/events';
import {
  createEndpoint,
  deleteEndpoint,
  type EndpointFields,
  getEndpoint,
  rollEndpointSecret,
  type StoredEndpoint,
  updateEndpoint,
} from '../store/webhook-endpoints';
import { patchOf } from '../schemas/catalogue';
import { httpUrl, text } from '../schemas/fields';
import { checkNotifyUrl } from '../commands/notify-url';

// Creating, changing, deleting a webhook endpoint and rolling its secret: the address rule
// and the `webhook_endpoint.*` event in the same database transaction as the change. One
// copy of the steps, called by the API's routes (api/webhook-endpoints.ts) with values
// parsed by the API's schemas (a refused URL throws its field's ApiError), and by the
// dashboard's pages (dashboard/endpoint-routes.ts) with a form's input, through
// `webhookEndpointChanges`.

const HOUR_MS = 60 * 60_000;

const enabledEvents = z
  .array(z.enum([...EVENT_TYPES, '*']))
  .min(1)
  .max(EVENT_TYPES.length)
  .refine((list) => new Set(list).size === list.length, 'must not list an event type twice')
  .meta({ uniqueItems: true })
  .refine((list) => !list.includes('*') || list.length === 1, '"*" stands alone: it already takes every event')
  .describe('The event types sent to it, or `["*"]` for every one');

/** What a webhook endpoint is made of: the API's create body (and, as a patch, its change body). */
export const endpointFields = z.strictObject({
  url: httpUrl.describe('Where events are POSTed (http or https); the same address rules as a notify_url'),
  enabled_events: enabledEvents,
  description: text(255).nullable().default(null).describe('What it is for, for you'),
  enabled: z.boolean().default(true).describe('Whether events are sent to it'),
});

export const rollBody = z
  .strictObject({
    overlap_hours: z.number().int().min(0).max(168).default(24).describe('How long the old secret goes on signing beside the new one, 0 to 168 hours; default 24'),
  })
  .meta({ id: 'RollSecretInput', description: 'How long the old secret keeps signing' });

export async function createWebhookEndpoint(deps: Deps, db: Db, environmentId: string, fields: EndpointFields): Promise<StoredEndpoint> {
  checkNotifyUrl(fields.url, deps.config, 'url');
  const now = deps.now();
  return inTransaction(db, async (trx) => {
    const endpoint = await createEndpoint(trx, environmentId, fields, now);
    await deps.outbox.emit(trx, 'webhook_endpoint.created', endpoint.id, now);
    return endpoint;
  });
}

/** Undefined: no such endpoint in the environment. */
export async function changeWebhookEndpoint(deps: Deps, db: Db, environmentId: string, id: string, patch: Partial<EndpointFields>): Promise<StoredEndpoint | undefined> {
  if (typeof patch.url === 'string') checkNotifyUrl(patch.url, deps.config, 'url');
  const now = deps.now();
  return inTransaction(db, async (trx) => {
    const updated = await updateEndpoint(trx, environmentId, id, patch, now);
    if (updated) await deps.outbox.emit(trx, 'webhook_endpoint.updated', updated.id, now);
    return updated;
  });
}

/** False: no such endpoint in the environment. */
export async function deleteWebhookEndpoint(deps: Deps, db: Db, environmentId: string, id: string): Promise<boolean> {
  const now = deps.now();
  return inTransaction(db, async (trx) => {
    if (!(await getEndpoint(trx, environmentId, id))) return false;
    // The event shows the endpoint as it was: written before the row goes.
    await deps.outbox.emit(trx, 'webhook_endpoint.deleted', id, now);
    // Its deliveries not yet made stop; their history, with its id and URL, stays on the events.
    await stopEndpointDeliveries(trx, id);
    return deleteEndpoint(trx, environmentId, id);
  });
}

/** A new secret, the old one signing beside it for `overlapHours`; undefined: no such endpoint. */
export async function rollWebhookEndpointSecret(deps: Deps, db: Db, environmentId: string, id: string, overlapHours: number): Promise<StoredEndpoint | undefined> {
  const now = deps.now();
  return rollEndpointSecret(db, environmentId, id, now, new Date(now.getTime() + overlapHours * HOUR_MS));
}

/** What a change came to, for a caller without problem+json: the endpoint, or the fields at fault. */
export type EndpointOutcome = { ok: true; endpoint: StoredEndpoint } | { ok: false; errors: FieldError[] };

async function outcomeOf(work: () => Promise<StoredEndpoint | undefined>): Promise<EndpointOutcome | undefined> {
  try {
    const endpoint = await work();
    return endpoint && { ok: true, endpoint };
  } catch (err) {
    if (err instanceof ApiError && err.code === 'invalid_request' && err.errors) return { ok: false, errors: err.errors };
    throw err;
  }
}

/** The changes above from input not yet parsed (a form's): the API's schemas, rules and events, refusals as EndpointOutcome. */
export interface WebhookEndpointChanges {
  create(environmentId: string, input: unknown): Promise<EndpointOutcome>;
  /** Undefined: no such endpoint in the environment. */
  change(environmentId: string, id: string, input: unknown): Promise<EndpointOutcome | undefined>;
  /** False: no such endpoint in the environment. */
  remove(environmentId: string, id: string): Promise<boolean>;
  /** The endpoint with its new secret, shown once; undefined: no such endpoint. */
  rollSecret(environmentId: string, id: string, input: unknown): Promise<EndpointOutcome | undefined>;
}

export function webhookEndpointChanges(deps: Deps): WebhookEndpointChanges {
  const db = deps.database.db;
  const patch = patchOf(endpointFields);
  const exists = async (environmentId: string, id: string) => (await getEndpoint(db, environmentId, id)) !== undefined;
  return {
    async create(environmentId: string, input: unknown): Promise<EndpointOutcome> {
      const value = endpointFields.safeParse(input);
      if (!value.success) return { ok: false, errors: zodErrors(value.error) };
      return (await outcomeOf(() => createWebhookEndpoint(deps, db, environmentId, value.data)))!;
    },
    async change(environmentId: string, id: string, input: unknown): Promise<EndpointOutcome | undefined> {
      const value = patch.safeParse(input);
      if (!value.success) return (await exists(environmentId, id)) ? { ok: false, errors: zodErrors(value.error) } : undefined;
      return outcomeOf(() => changeWebhookEndpoint(deps, db, environmentId, id, value.data as Partial<EndpointFields>));
    },
    remove: (environmentId: string, id: string) => deleteWebhookEndpoint(deps, db, environmentId, id),
    async rollSecret(environmentId: string, id: string, input: unknown): Promise<EndpointOutcome | undefined> {
      const value = rollBody.safeParse(input);
      if (!value.success) return (await exists(environmentId, id)) ? { ok: false, errors: zodErrors(value.error) } : undefined;
      return outcomeOf(() => rollWebhookEndpointSecret(deps, db, environmentId, id, value.data.overlap_hours));
    },
  };
}
