import { z } from 'zod';
import { validateFields } from '../../widget/fields/card';
import { testCardErrors } from '../payments/live';
import { ApiError, type FieldError, fieldError, found, inFlight, RecordedError } from '../http/problem';
import { getClient } from '../store/clients';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { route, type RouteDef } from '../http/route';
import type { Deps } from '../deps';
import { chargeAuthorization, type ChargeResult } from '../payments/charge';
import { canStore, type StoringGateway } from '../payments/gateway';
import { boundStep } from '../payments/outcome';
import { storeCard, type StoreCardOutcome } from '../payments/store-card';
import { getAuthorization, listAuthorizations } from '../store/sales';
import { removeAuthorization } from '../payments/authorization-removal';
import { checkNotifyUrl } from '../commands/notify-url';
import { currencyCode, exact, freeText, httpUrl, livemode, objectId, positiveMoneyAmount, ref, timestamps } from '../schemas/fields';
import { toMinor } from '../http/amounts';
import { AUTHORIZATION_EXAMPLE, IDS, page, SALE_EXAMPLE } from './examples';
import { presentAuthorization } from '../present/authorization';
import { createSaveRequest, rawCardNumbers } from '../store/saved-cards';
import type { AuthorizationRow } from '../store/schema';
import { presentSale } from '../present/sale';
import { authenticationOut, saleOut } from './sales';

// Authorizations: stored payment methods. Only the card's brand, last four digits and
// expiry are ever stored or returned; the number and CVC go to the gateway and nowhere else.

export const authorizationOut = z
  .object({
    id: objectId,
    livemode,
    status: z
      .enum(['pending', 'requires_action', 'active', 'removed', 'failed', 'expired'])
      .describe(
        '`active` can be charged; `removed` never again; `pending` while the gateway has not told whether it stored the card (it becomes `active` or `failed`), or while the hosted page at `url` waits for the customer\'s card (for 7 days after `created`); `requires_action`: the card\'s issuer asks the customer to authenticate first, at `url` (for 15 minutes; a challenge left unanswered fails as a failed one does); `failed`: the gateway proved it did not store it, or the API\'s card failed or left its challenge; `expired`: the hosted page\'s customer gave no card within 7 days (`authorization.expired`)',
      ),
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
    client: z.uuid().nullable().describe('`id` of the client it was saved for, or null. A processor that keeps customers (Stripe) saves every card of one client under one customer of theirs'),
    authentication: authenticationOut.describe('How the cardholder was authenticated when the card was stored (3-D Secure-like: at the issuer\'s challenge, or frictionless), or null when the issuer asked nothing'),
    notify_url: z.string().nullable().describe('Where authorization.* notifications are sent'),
    token: z
      .string()
      .nullable()
      .optional()
      .describe('While `pending` for the customer or `requires_action`: the hosted page\'s token, for the widget (`data-checkout-token`); otherwise null'),
    url: z
      .string()
      .nullable()
      .optional()
      .describe('While `pending` for the customer or `requires_action`: the hosted page to send the customer to (it takes the card, or runs the challenge; it expires 7 days after `created`, a challenge 15 minutes after it opened); otherwise null'),
    ...timestamps,
  })
  .meta({ id: 'Authorization', description: 'A stored payment method (a card), charged later without the customer' });

const card = z.strictObject({
  number: exact(32).describe('As printed, spaces allowed; the sandbox test cards decide the outcome'),
  expiry: exact(16).describe('Expiry month and year as printed, MM/YY'),
  cvc: exact(8).describe('Card verification code; sent to the gateway, never stored'),
  name: exact(255).describe('Cardholder name'),
}).describe('The card to store');

const authorizationCreate = z
  .strictObject({
    gateway: ref('gateway').describe('`id` of a gateway that can store cards (the sandbox card gateway)'),
    card: card
      .optional()
      .describe('The card to store. Without it, the answer\'s `url` is a hosted page where the customer gives it (the only way when the environment\'s `raw_card_numbers` is off)'),
    client: ref('client')
      .optional()
      .describe('`id` of a client of this environment the card is saved for. With a processor that keeps customers (Stripe), the client\'s customer there is made once and every card saved for the client is attached to it'),
    notify_url: httpUrl.optional().describe('Where authorization.* notifications are sent'),
    return_url: httpUrl.optional().describe('The hosted page sends the customer here (303) once the card is saved; an absolute http(s) URL. Without it, the page confirms'),
    cancel_url: httpUrl.optional().describe('The hosted page sends the customer here (303) when they cancel; an absolute http(s) URL'),
  })
  .meta({ id: 'Authorization', description: 'A card to store as an authorization, or none: a hosted page that takes it' });

const chargeBody = z
  .strictObject({
    amount: positiveMoneyAmount('Major units of `currency`'),
    currency: currencyCode.describe('Currency of the charge; one the gateway takes'),
    description: freeText(2000).optional().describe('What the charge is for, kept on the sale'),
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
  'error.card.testInLive': 'is a sandbox test card: a live environment takes real cards only',
};

const listQuery = pageQuery.extend({
  status: z.enum(['pending', 'requires_action', 'active', 'removed', 'failed', 'expired']).optional().describe('Only authorizations in this state'),
  transaction_id: ref('transaction').optional().describe('Only the authorization stored by this transaction'),
});

/** The API's view: the presenter's, with the hosted page while the customer has something to do there. */
function present(row: AuthorizationRow, baseUrl: string) {
  const open = row.token && (row.status === 'requires_action' || (row.status === 'pending' && row.hosted_page === 1));
  return { ...presentAuthorization(row), token: open ? row.token! : null, url: open ? `${baseUrl}/pay/${row.token}/` : null };
}

const rawCardsOff = () =>
  new ApiError(
    'raw_cards_off',
    'card: this environment takes no raw card numbers (its raw_card_numbers setting is off); send the request without card and send the customer to the answer\'s url, where they give the card',
    [{ path: 'card', message: 'is not taken by this environment: leave it out and use the hosted page at the answer\'s url' }],
  );

const gatewayFailed = (what: string) => new ApiError('gateway_error', `The gateway did not act; ${what} (a retry is safe)`);

function listRoute(): RouteDef {
  return route({
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
    handler: (ctx) => listPage(ctx, (filters, p) => listAuthorizations(ctx.db, ctx.env.id, filters, p), (row) => present(row, ctx.baseUrl)),
  });
}

/** The body's gateway, if it is one that stores cards through the API. */
async function storingGateway(deps: Deps, env: { id: string; live: boolean }, id: string): Promise<StoringGateway> {
  const { live } = env;
  const gateways = await deps.gateways.of(env.id);
  const gateway = gateways.find(id);
  if (!gateway?.enabled) throw new ApiError('invalid_request', 'gateway: is not a gateway', [{ path: 'gateway', message: 'is not a gateway' }]);
  if (!gateways.usable(live).includes(gateway)) {
    const message = live
      ? 'is a sandbox gateway: a live environment uses the gateways configured for real money (GET /v1/gateway/)'
      : 'moves real money: a sandbox uses the sandbox gateways (GET /v1/gateway/)';
    throw new ApiError('invalid_request', `gateway: ${message}`, [{ path: 'gateway', message }]);
  }
  if (!canStore(gateway)) {
    const message = 'cannot store a payment method through the API (its customers approve on the provider page)';
    throw new ApiError('invalid_request', `gateway: ${message}`, [{ path: 'gateway', message }]);
  }
  return gateway;
}

/** The card as the gateway's fields, checked by the rules the payment screen uses. */
function cardFields(gateway: StoringGateway, card: NonNullable<z.output<typeof authorizationCreate>['card']>, now: Date, live: boolean): Record<string, string> {
  const fields = { card_number: card.number, card_expiry: card.expiry, card_cvc: card.cvc, card_name: card.name };
  const invalid = Object.entries({ ...validateFields(gateway.fields, fields, now), ...testCardErrors(live, fields) }).map(
    ([name, key]): FieldError => ({ path: `card.${name.replace(/^card_/, '')}`, message: CARD_ERRORS[key] ?? 'is not valid' }),
  );
  if (invalid.length) throw new ApiError('invalid_request', invalid.map((e) => `${e.path}: ${e.message}`).join('; '), invalid);
  return fields;
}

/** What storing a card answers: the authorization, or the problem of each other outcome. */
function storedAnswer(outcome: StoreCardOutcome, accepted: () => void, baseUrl: string) {
  switch (outcome.kind) {
    case 'challenge':
      // Created, and waiting for the customer: `requires_action` with the page to send them to.
      return present(outcome.authorization, baseUrl);
    case 'gateway_failed':
      throw gatewayFailed('nothing was stored');
    case 'declined':
      throw new ApiError('payment_declined', `The gateway declined the card (${outcome.reason}); nothing was stored`);
    case 'in_flight':
      throw inFlight(outcome.retryAfterMs);
    case 'pending':
      accepted();
      return present(outcome.authorization, baseUrl);
    case 'not_stored':
      throw new RecordedError('gateway_error', `The gateway never stored the card; authorization ${outcome.authorization.id} is failed (nothing was stored)`);
    case 'attention':
      throw new ApiError('gateway_error', 'The gateway stored the card, but it could not be recorded: it is kept for our operators to check, and never charged');
    case 'stored':
      return present(outcome.authorization, baseUrl);
  }
}

function createRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/authorization/',
    operationId: 'createAuthorization',
    summary: 'Store a card with the sandbox card gateway',
    description:
      'Checks the card with the gateway and stores it as an authorization; only its brand, last four digits and expiry are kept. ' +
      'A declined card is a 402; a gateway that surely did not act a 502 (nothing stored). When the gateway did not answer, the outcome is ' +
      'unknown: a 202 with the authorization `pending`, which ends `active` or `failed` as reconciliation proves it (a retry with the same ' +
      '`Idempotency-Key` answers its current state, the same authorization id). Without `card`: a 201 with the authorization `pending` and ' +
      'the `url` of a hosted page where the customer gives it; the page expires 7 days after `created` if no card was given ' +
      '(`expired`, event `authorization.expired`). A challenge (`requires_action`) not answered within 15 minutes fails as a failed one does.',
    example: {
      request: { gateway: IDS.gateway, card: { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'Ana García' } },
      response: AUTHORIZATION_EXAMPLE,
    },
    tag: 'Authorization',
    body: authorizationCreate,
    response: authorizationOut,
    status: 201,
    problems: [402, 403, 502],
    accepted: 'The outcome is unknown (the gateway did not answer): the authorization, `pending` until reconciliation proves whether the card was stored',
    movesMoney: true,
    async handler({ env, body, deps, db, binding, accepted, baseUrl }) {
      const live = env.mode === 'live';
      const gateway = await storingGateway(deps, { id: env.id, live }, body.gateway);
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      if (body.client && !(await getClient(db, env.id, body.client))) throw fieldError('client', 'is not a client of this environment');
      const urls = { returnUrl: body.return_url ?? null, cancelUrl: body.cancel_url ?? null };
      const clientId = body.client ?? null;
      if (!body.card) {
        const row = await createSaveRequest(db, { environmentId: env.id, gateway, notifyUrl: body.notify_url ?? null, clientId, ...urls, now: deps.now() });
        return present(row, baseUrl);
      }
      // Its processor takes the card on its own page: a number sent here would never reach it.
      if (gateway.fields.length === 0) throw fieldError('card', 'is not taken by this gateway (the card is given on its processor\'s page): leave it out and send the customer to the answer\'s url');
      if (!(await rawCardNumbers(db, env.id))) throw rawCardsOff();
      const fields = cardFields(gateway, body.card, deps.now(), live);
      const store = { environmentId: env.id, gateway, fields, notifyUrl: body.notify_url ?? null, bound: boundStep(binding), authenticate: true, clientId, ...urls };
      return storedAnswer(await storeCard(deps, store), accepted, baseUrl);
    },
  });
}

function getRoute(): RouteDef {
  return route({
    method: 'get',
    path: '/authorization/{id}/',
    operationId: 'getAuthorization',
    summary: 'Get an authorization',
    description: 'One stored payment method.',
    example: { response: AUTHORIZATION_EXAMPLE },
    tag: 'Authorization',
    response: authorizationOut,
    status: 200,
    async handler({ env, params, db, baseUrl }) {
      const row = found(await getAuthorization(db, env.id, params.id!), 'authorization');
      return present(row, baseUrl);
    },
  });
}

/** What charging answers: the sale, or the problem of each other outcome. */
function chargedAnswer(outcome: ChargeResult, accepted: () => void, baseUrl: string) {
  switch (outcome.kind) {
    case 'gateway_failed':
      throw gatewayFailed('nothing was charged');
    case 'in_flight':
      throw inFlight(outcome.retryAfterMs);
    case 'attention':
      throw new ApiError(
        'gateway_error',
        'The gateway charged, but the charge could not be recorded: it is being reversed at the gateway and kept for our operators to check',
      );
    case 'pending':
      accepted();
      return presentSale(outcome.sale, baseUrl);
    case 'not_processed':
      throw new RecordedError('gateway_error', `The gateway never made the charge; sale ${outcome.sale.row.id} is failed (nothing was charged)`);
    case 'not_active':
      throw new ApiError('conflict', 'only an active authorization can be charged (this one is removed, failed or still pending); nothing was charged');
    case 'declined':
      if (outcome.outcome === 'authentication_required' && outcome.sale.row.confirm_token) {
        throw new RecordedError(
          'payment_declined',
          `The card's issuer asks the customer to authenticate (authentication_required); the attempt is recorded as sale ${outcome.sale.row.id}, whose confirm_url (in its sale.declined event, and on GET /sale/${outcome.sale.row.id}/) is the page to send the customer to`,
        );
      }
      throw new RecordedError(
        'payment_declined',
        `The gateway declined the charge (${outcome.outcome}); the attempt is recorded as sale ${outcome.sale.row.id}`,
      );
    case 'approved':
      return presentSale(outcome.sale, baseUrl);
  }
}

function chargeRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/authorization/{id}/charge/',
    operationId: 'chargeAuthorization',
    summary: 'Charge the stored payment method: a captured sale',
    description:
      'Charges the stored card and answers with the captured sale. A declined charge is a 402 and is recorded as a `declined` sale ' +
      '(`authentication_required`: see its `confirm_url`); ' +
      'a removed authorization, or one whose gateway keeps no saved cards (`saved_cards` false on `GET /gateway/`), is a 409; a gateway that surely did not act a 502 (nothing was charged). When the gateway did not ' +
      'answer, the outcome is unknown: a 202 with the sale `pending`, which ends `captured` or `failed` as reconciliation proves it ' +
      '(a retry with the same `Idempotency-Key` answers its current state, the same sale id).',
    example: {
      request: { amount: 19.9, currency: 'EUR', description: 'January box' },
      response: { ...SALE_EXAMPLE, transaction_id: null, authorization_id: IDS.authorization, authentication: { status: 'exempt', method: 'merchant_initiated' } },
    },
    tag: 'Authorization',
    body: chargeBody,
    response: saleOut,
    status: 201,
    problems: [402, 409, 502],
    accepted: 'The outcome is unknown (the gateway did not answer): the sale, `pending` until reconciliation proves what the gateway did',
    movesMoney: true,
    async handler({ env, params, body, deps, db, binding, accepted, baseUrl }) {
      const authorization = found(await getAuthorization(db, env.id, params.id!), 'authorization');
      const gateway = (await deps.gateways.of(env.id)).find(authorization)!;
      // A gateway without saved cards (no `store`: the `saved_cards` capability) would refuse it: refused here, before it is asked.
      if (!canStore(gateway)) throw new ApiError('conflict', 'the authorization\'s gateway keeps no saved cards (its saved_cards capability is false): it cannot be charged; nothing was charged');
      if (gateway.currencies && !gateway.currencies.includes(body.currency)) {
        throw new ApiError('invalid_request', `currency: the gateway does not take ${body.currency}`, [
          { path: 'currency', message: `is not taken by the authorization's gateway` },
        ]);
      }
      const amount = toMinor(body.amount, body.currency, 'amount');
      const charge = { authorization, amount, currency: body.currency, description: body.description ?? null, bound: boundStep(binding) };
      return chargedAnswer(await chargeAuthorization(deps, charge), accepted, baseUrl);
    },
  });
}

function removeRoute(): RouteDef {
  return route({
    method: 'post',
    path: '/authorization/{id}/remove/',
    operationId: 'removeAuthorization',
    summary: 'Remove the stored payment method: it can never be charged again',
    description: 'Removes an active authorization for good; removing one in any other status (already removed, or still pending, failed or expired) is a 409 naming it. Takes no body (or `{}`).',
    example: { request: {}, response: { ...AUTHORIZATION_EXAMPLE, status: 'removed' } },
    tag: 'Authorization',
    body: removeBody,
    response: authorizationOut,
    status: 200,
    async handler({ env, params, deps, db, baseUrl }) {
      const removed = await removeAuthorization(db, env.id, params.id!, deps.now, deps.outbox);
      const authorization = present(found(await getAuthorization(db, env.id, params.id!), 'authorization'), baseUrl);
      if (!removed) {
        const why = authorization.status === 'removed' ? 'already removed: an authorization is removed once' : `${authorization.status}: only an active authorization is removed`;
        throw new ApiError('conflict', `the authorization is ${why}; nothing was changed`);
      }
      return authorization;
    },
  });
}

export const authorizationRoutes = (): RouteDef[] => [listRoute(), createRoute(), getRoute(), chargeRoute(), removeRoute()];
