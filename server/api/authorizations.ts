import { z } from 'zod';
import { validateFields } from '../../widget/fields/card';
import { ApiError, type FieldError, RecordedError } from '../http/problem';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import { chargeAuthorization } from '../payments/charge';
import { canStore } from '../payments/gateway';
import { storeCard } from '../payments/store-card';
import { getAuthorization, listAuthorizations, removeAuthorization } from '../store/sales';
import { checkNotifyUrl } from './notify-url';
import { currencyCode, httpUrl, objectId, positiveAmount, ref, text, timestamps, toMinor } from './fields';
import { AUTHORIZATION_EXAMPLE, IDS, page, SALE_EXAMPLE } from './examples';
import { presentAuthorization } from '../present/authorization';
import { presentSale } from '../present/sale';
import { saleOut } from './sales';

// Authorizations: stored payment methods. Only the card's brand, last four digits and
// expiry are ever stored or returned; the number and CVC go to the gateway and nowhere else.

export const authorizationOut = z
  .object({
    id: objectId,
    status: z.enum(['active', 'removed']).describe('`active` can be charged; `removed` never again'),
    transaction_id: z.uuid().nullable().describe('The transaction paid with `authorize: true` that stored it, if any'),
    gateway: z.uuid().describe('`id` of the gateway'),
    card: z
      .object({
        brand: z.string().nullable().describe('Card brand (`visa`, `mastercard`, …)'),
        last4: z.string().nullable().describe('Last four digits of the card number'),
        exp_month: z.number().int().nullable().describe('Expiry month, 1 to 12'),
        exp_year: z.number().int().nullable().describe('Expiry year, four digits'),
      })
      .nullable()
      .describe('What is stored of the card: never its number or CVC'),
    notify_url: z.string().nullable().describe('Where authorization.* notifications are sent'),
    ...timestamps,
  })
  .meta({ id: 'Authorization', description: 'A stored payment method (a card), charged later without the customer' });

const card = z.strictObject({
  number: z.string().max(32).describe('As printed, spaces allowed; the sandbox test cards decide the outcome'),
  expiry: z.string().max(16).describe('Expiry month and year as printed, MM/YY'),
  cvc: z.string().max(8).describe('Card verification code; sent to the gateway, never stored'),
  name: z.string().max(255).describe('Cardholder name'),
}).describe('The card to store');

const authorizationCreate = z
  .strictObject({
    gateway: ref('gateway').describe('`id` of a gateway that can store cards (the sandbox card gateway)'),
    card,
    notify_url: httpUrl.optional().describe('Where authorization.* notifications are sent'),
  })
  .meta({ id: 'Authorization', description: 'A card to store as an authorization' });

const chargeBody = z
  .strictObject({
    amount: positiveAmount.describe('Major units of `currency`'),
    currency: currencyCode.describe('Currency of the charge; one the gateway takes'),
    description: text(2000).optional().describe('What the charge is for, kept on the sale'),
  })
  .meta({ id: 'AuthorizationCharge', description: 'A charge of a stored payment method' });

/** Removing takes no fields: no body, or `{}`. */
const removeBody = z.strictObject({}).meta({ id: 'AuthorizationRemove', description: 'No fields: send no body, or `{}`' });

// The screen's validators answer with locale keys; the API answers in words.
const CARD_ERRORS: Record<string, string> = {
  'error.required': 'is required',
  'error.card.number.invalid': 'is not a valid card number',
  'error.card.number.length': 'has the wrong number of digits for its card brand',
  'error.card.expiry.format': 'must be a month and year as MM/YY, within 20 years',
  'error.card.expiry.past': 'is in the past: the card has expired',
  'error.card.cvc.length': 'has the wrong number of digits for its card brand',
};

const listQuery = pageQuery.extend({
  status: z.enum(['active', 'removed']).optional().describe('Only authorizations in this state'),
  transaction_id: ref('transaction').optional().describe('Only the authorization stored by this transaction'),
});

const notFound = () => new ApiError('not_found', 'No authorization with this id');
const gatewayFailed = (what: string) =>
  new ApiError('gateway_error', `The gateway failed or did not answer in time; ${what} (a retry is safe)`);

export const authorizationRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/authorization/',
    operationId: 'listAuthorizations',
    summary: 'List authorizations (stored payment methods), newest first',
    description: 'The stored payment methods of your environment, newest first; filter by status or by the transaction that stored one.',
    example: { response: page([AUTHORIZATION_EXAMPLE]) },
    tag: 'Authorization',
    query: listQuery,
    response: pageEnvelopeSchema(authorizationOut),
    status: 200,
    async handler({ env, query, req, baseUrl, db }) {
      const { page, page_size, ...filters } = query;
      const { count, rows } = await listAuthorizations(db, env.id, filters, { page, page_size });
      return pageEnvelope(req, baseUrl, { page, page_size }, count, rows.map(presentAuthorization));
    },
  }),
  route({
    method: 'post',
    path: '/authorization/',
    operationId: 'createAuthorization',
    summary: 'Store a card with the sandbox card gateway',
    description:
      'Checks the card with the gateway and stores it as an authorization; only its brand, last four digits and expiry are kept. ' +
      'A declined card is a 402; a gateway failure a 502 (a retry is safe).',
    example: {
      request: { gateway: IDS.gateway, card: { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'Ana García' } },
      response: AUTHORIZATION_EXAMPLE,
    },
    tag: 'Authorization',
    body: authorizationCreate,
    response: authorizationOut,
    status: 201,
    problems: [402, 502],
    movesMoney: true,
    async handler({ env, body, deps }) {
      const gateway = deps.gateways.find(body.gateway);
      if (!gateway?.enabled) throw new ApiError('invalid_request', 'gateway: is not a gateway', [{ path: 'gateway', message: 'is not a gateway' }]);
      if (!canStore(gateway)) {
        const message = 'cannot store a payment method through the API (its customers approve on the provider page)';
        throw new ApiError('invalid_request', `gateway: ${message}`, [{ path: 'gateway', message }]);
      }
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      const now = deps.now();
      const fields = { card_number: body.card.number, card_expiry: body.card.expiry, card_cvc: body.card.cvc, card_name: body.card.name };
      const invalid = Object.entries(validateFields(gateway.fields, fields, now)).map(
        ([name, key]): FieldError => ({ path: `card.${name.replace(/^card_/, '')}`, message: CARD_ERRORS[key] ?? 'is not valid' }),
      );
      if (invalid.length) throw new ApiError('invalid_request', invalid.map((e) => `${e.path}: ${e.message}`).join('; '), invalid);
      const outcome = await storeCard(deps, { environmentId: env.id, gateway, fields, notifyUrl: body.notify_url ?? null });
      if (outcome.kind === 'gateway_failed') throw gatewayFailed('nothing was stored');
      if (outcome.kind === 'declined') {
        throw new ApiError('payment_declined', `The gateway declined the card (${outcome.reason}); nothing was stored`);
      }
      const row = outcome.authorization;
      return presentAuthorization(row);
    },
  }),
  route({
    method: 'get',
    path: '/authorization/{id}/',
    operationId: 'getAuthorization',
    summary: 'Get an authorization',
    description: 'One stored payment method.',
    example: { response: AUTHORIZATION_EXAMPLE },
    tag: 'Authorization',
    response: authorizationOut,
    status: 200,
    async handler({ env, params, db }) {
      const row = await getAuthorization(db, env.id, params.id!);
      if (!row) throw notFound();
      return presentAuthorization(row);
    },
  }),
  route({
    method: 'post',
    path: '/authorization/{id}/charge/',
    operationId: 'chargeAuthorization',
    summary: 'Charge the stored payment method: a captured sale',
    description:
      'Charges the stored card and answers with the captured sale. A declined charge is a 402 and is recorded as a `declined` sale; ' +
      'a removed authorization is a 409; a gateway failure a 502 (nothing was charged).',
    example: {
      request: { amount: 19.9, currency: 'EUR', description: 'January box' },
      response: { ...SALE_EXAMPLE, transaction_id: null, authorization_id: IDS.authorization },
    },
    tag: 'Authorization',
    body: chargeBody,
    response: saleOut,
    status: 201,
    problems: [402, 502],
    movesMoney: true,
    async handler({ env, params, body, deps, db }) {
      const authorization = await getAuthorization(db, env.id, params.id!);
      if (!authorization) throw notFound();
      const gateway = deps.gateways.find(authorization.gateway_id)!;
      if (gateway.currencies && !gateway.currencies.includes(body.currency)) {
        throw new ApiError('invalid_request', `currency: the gateway does not take ${body.currency}`, [
          { path: 'currency', message: `is not taken by the authorization's gateway` },
        ]);
      }
      const amount = toMinor(body.amount, body.currency, 'amount');
      const outcome = await chargeAuthorization(deps, { authorization, amount, currency: body.currency, description: body.description ?? null });
      switch (outcome.kind) {
        case 'gateway_failed':
          throw gatewayFailed('nothing was charged');
        case 'not_active':
          throw new ApiError('conflict', 'a removed authorization cannot be charged; nothing was charged');
        case 'declined':
          throw new RecordedError(
            'payment_declined',
            `The gateway declined the charge (${outcome.outcome}); the attempt is recorded as sale ${outcome.sale.row.id}`,
          );
        case 'approved':
          return presentSale(outcome.sale);
      }
    },
  }),
  route({
    method: 'post',
    path: '/authorization/{id}/remove/',
    operationId: 'removeAuthorization',
    summary: 'Remove the stored payment method: it can never be charged again',
    description: 'Removes the authorization for good; removing one already removed is a 409. Takes no body (or `{}`).',
    example: { request: {}, response: { ...AUTHORIZATION_EXAMPLE, status: 'removed' } },
    tag: 'Authorization',
    body: removeBody,
    response: authorizationOut,
    status: 200,
    async handler({ env, params, deps, db }) {
      const removed = await removeAuthorization(db, env.id, params.id!, deps.now(), deps.outbox);
      const row = await getAuthorization(db, env.id, params.id!);
      if (!row) throw notFound();
      if (!removed) throw new ApiError('conflict', 'the authorization is already removed: an authorization is removed once');
      return presentAuthorization(row);
    },
  }),
];
