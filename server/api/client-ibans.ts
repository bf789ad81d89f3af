import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { found, invalid, notFound } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { addIban, changeIban } from '../clients/client-changes';
import { getClient, getIban, listIbans } from '../store/clients';
import type { ClientIban } from '../store/clients';
import { patchOf } from '../schemas/catalogue';
import { ibanFieldsOf, presentIban } from '../present/client';
import { ibanFields, ibanOut, ibanRow } from '../schemas/client-objects';
import { booleanQuery, flagOf, unique } from './clients';
import { checkNotifyUrl } from '../commands/notify-url';
import { exact } from '../schemas/fields';
import { IBAN_EXAMPLE, page } from './examples';

// A client's IBANs, where payouts go. Each is enabled by compliance while its client is.

const TAG = 'Clients';

function listRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/client/{clientId}/iban/',
    operationId: 'listClientIbans',
    description: "The client's IBANs, newest first.",
    example: { response: page([IBAN_EXAMPLE]) },
    summary: "List a client's IBANs, newest first",
    tag: TAG,
    query: pageQuery.extend({
      iban_id: exact(255).optional().describe('Only the IBAN with this external `iban_id`'),
      enabled: booleanQuery,
    }),
    response: pageEnvelopeSchema(ibanOut),
    status: 200,
    async handler(ctx) {
      const { env, params, db } = ctx;
      if (!(await getClient(db, env.id, params.clientId!))) throw notFound('client');
      return listPage(ctx, ({ iban_id, enabled }, p) => listIbans(db, env.id, params.clientId!, { iban_id, enabled: flagOf(enabled) }, p), presentIban);
    },
  });
}

function createRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/client/{clientId}/iban/',
    operationId: 'createClientIban',
    description: 'Adds an IBAN to the client after checking its country, length, format and mod-97 check digits. An `iban_id` already used by the client is a 409.',
    example: { request: { iban_id: 'main', iban: 'ES91 2100 0418 4502 0005 1332' }, response: IBAN_EXAMPLE },
    summary: 'Add an IBAN to a client (checked: country, length, format, mod-97)',
    tag: TAG,
    body: ibanFields,
    response: ibanOut,
    status: 201,
    async handler({ env, params, body, deps, db }) {
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      const row = found(await unique('iban_id', () => addIban(db, { environmentId: env.id, clientId: params.clientId!, values: ibanRow(body), now: deps.now(), outbox: deps.outbox })), 'client');
      return presentIban(row);
    },
  });
}

function getRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/client/{clientId}/iban/{id}/',
    operationId: 'getClientIban',
    description: "One of the client's IBANs.",
    example: { response: IBAN_EXAMPLE },
    summary: "Get one of a client's IBANs",
    tag: TAG,
    response: ibanOut,
    status: 200,
    async handler({ env, params, db }) {
      const row = found(await getIban(db, env.id, params.clientId!, params.id!), 'IBAN');
      return presentIban(row);
    },
  });
}

function updateRoute(): RouteDef {
  return route({
    method: 'patch',
    path: '/client/{clientId}/iban/{id}/',
    operationId: 'updateClientIban',
    description: 'Changes the fields sent. An `iban_id` already used by the client is a 409.',
    example: { request: { enabled: false }, response: { ...IBAN_EXAMPLE, enabled: false } },
    problems: [409],
    summary: 'Change the fields named; id, client and enabled_by_compliance are read-only',
    tag: TAG,
    body: patchOf(ibanFields),
    response: ibanOut,
    status: 200,
    async handler({ env, params, body, deps, db }) {
      const merge = (current: ClientIban) => {
        const merged = ibanFields.safeParse({ ...ibanFieldsOf(current), ...body });
        if (!merged.success) throw invalid(merged.error);
        if (merged.data.notify_url) checkNotifyUrl(merged.data.notify_url, deps.config);
        return ibanRow(merged.data);
      };
      const row = found(await unique('iban_id', () => changeIban(db, { environmentId: env.id, clientId: params.clientId!, id: params.id!, merge, now: deps.now(), outbox: deps.outbox })), 'IBAN');
      return presentIban(row);
    },
  });
}

export const clientIbanRoutes = (): RouteDef[] => [
  listRoute(),
  createRoute(),
  getRoute(),
  updateRoute(),
];
