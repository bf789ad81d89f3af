import { z } from 'zod';
import type { Deps } from '../deps';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, found, invalid } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { changeClient, createClient } from '../clients/client-changes';
import { DuplicateKeyError, getClient, listClients } from '../store/clients';
import { patchOf } from '../schemas/catalogue';
import { clientFieldsOf, presentClient } from '../present/client';
import { clientFields, clientOut, clientRow } from '../schemas/client-objects';
import { checkNotifyUrl } from '../commands/notify-url';
import { exact } from '../schemas/fields';
import { CLIENT_EXAMPLE, CLIENT_REQUEST, page } from './examples';

// Clients: the people and companies a merchant pays out to. Their IBANs and documents
// are nested under them (client-ibans.ts, client-documents.ts).

const TAG = 'Clients';

export const booleanQuery = z.enum(['true', 'false']).optional().describe('Only objects where the flag is `true` or `false`');
export const flagOf = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');


/** A unique external id already in use: a 409 naming the field. */
export async function unique<T>(field: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!(err instanceof DuplicateKeyError)) throw err;
    throw new ApiError('conflict', `${field}: is already used`, [{ path: field, message: 'is already used' }]);
  }
}

/** Everything about a client that does not fit a schema: today's date, the phone, a private notify_url. */
function rowOf(value: z.output<typeof clientFields>, deps: Deps) {
  if (value.notify_url) checkNotifyUrl(value.notify_url, deps.config);
  return clientRow(value, deps.now());
}

export const clientRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/client/',
    operationId: 'listClients',
    description: 'The clients of your environment, newest first; filter by `client_id`, `enabled` or `enabled_by_compliance`.',
    example: { response: page([CLIENT_EXAMPLE]) },
    summary: 'List clients, newest first',
    tag: TAG,
    query: pageQuery.extend({
      client_id: exact(255).optional().describe('Only the client with this external `client_id`'),
      enabled: booleanQuery,
      enabled_by_compliance: booleanQuery,
    }),
    response: pageEnvelopeSchema(clientOut),
    status: 200,
    async handler(ctx) {
      return listPage(
        ctx,
        ({ client_id, enabled, enabled_by_compliance }, page) =>
          listClients(ctx.db, ctx.env.id, { client_id, enabled: flagOf(enabled), enabled_by_compliance: flagOf(enabled_by_compliance) }, page),
        presentClient,
      );
    },
  }),
  route({
    method: 'post',
    path: '/client/',
    operationId: 'createClient',
    description: 'Registers a client; `name`, `id_country` and `id_number` are required. A `client_id` already used is a 409. The compliance review sets `enabled_by_compliance` later.',
    example: { request: CLIENT_REQUEST, response: CLIENT_EXAMPLE },
    summary: 'Create a client (name, id_country and id_number are required)',
    tag: TAG,
    body: clientFields,
    response: clientOut,
    status: 201,
    async handler({ env, body, deps, db }) {
      const row = await unique('client_id', () => createClient(db, env.id, rowOf(body, deps), deps.now(), deps.outbox));
      return presentClient(row);
    },
  }),
  route({
    method: 'get',
    path: '/client/{id}/',
    operationId: 'getClient',
    description: 'One client.',
    example: { response: CLIENT_EXAMPLE },
    summary: 'Get a client',
    tag: TAG,
    response: clientOut,
    status: 200,
    async handler({ env, params, db }) {
      const row = found(await getClient(db, env.id, params.id!), 'client');
      return presentClient(row);
    },
  }),
  route({
    method: 'patch',
    path: '/client/{id}/',
    operationId: 'updateClient',
    description: 'Changes the fields sent and checks the whole client again. A `client_id` already used is a 409.',
    example: { request: { email: 'ana.garcia@example.com' }, response: { ...CLIENT_EXAMPLE, email: 'ana.garcia@example.com' } },
    problems: [409],
    summary: 'Change the fields named; id and enabled_by_compliance are read-only',
    tag: TAG,
    body: patchOf(clientFields),
    response: clientOut,
    status: 200,
    async handler({ env, params, body, deps, db }) {
      const merge = (current: Parameters<typeof clientFieldsOf>[0]) => {
        const merged = clientFields.safeParse({ ...clientFieldsOf(current), ...body });
        if (!merged.success) throw invalid(merged.error);
        return rowOf(merged.data, deps);
      };
      const row = found(await unique('client_id', () => changeClient(db, { environmentId: env.id, id: params.id!, merge, now: deps.now(), outbox: deps.outbox })), 'client');
      return presentClient(row);
    },
  }),
];
