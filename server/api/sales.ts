import { z } from 'zod';
import { unitsToDecimalString } from '../domain/money';
import { ACTION_RULES, actionLimit, SALE_STATUSES, type SaleAction } from '../domain/sales';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { moveSaleMoney } from '../payments/sale-actions';
import { presentSale } from '../present/sale';
import { getSale, listSales, type StoredSale } from '../store/sales';
import { currencyOut, dateTime, exponentOf, objectId, positiveAmount, ref, timestamps, toMinor } from './fields';
import { page, SALE_EXAMPLE } from './examples';

// Sales: what a payment or a charge made, and the three actions on its money.

const operationOut = z
  .object({
    id: objectId,
    kind: z.enum(['authorize', 'capture', 'refund', 'void', 'charge', 'decline']).describe('What the operation did'),
    amount: z.number().describe('How much it moved, in major units of `currency`'),
    created: dateTime.describe('When it was recorded (ISO 8601, UTC)'),
  })
  .describe('One movement of the sale\'s money');

export const saleOut = z
  .object({
    id: objectId,
    status: z.enum(SALE_STATUSES).describe('Derived from the amounts; see the docs'),
    transaction_id: z.uuid().nullable().describe('The paid transaction; null for a charge of an authorization'),
    authorization_id: z.uuid().nullable().describe('The stored payment method, when there is one'),
    gateway: z.uuid().describe('`id` of the gateway'),
    currency: currencyOut,
    amount: z.number().describe('What the payment or charge was for'),
    held: z.number().describe('On hold now: can be captured or voided'),
    captured: z.number().describe('Captured so far (refunds included)'),
    refunded: z.number().describe('Refunded so far'),
    voided: z.number().describe('Released without capture so far'),
    refundable: z.number().describe('captured − refunded'),
    failure: z.enum(['declined', 'insufficient_funds']).nullable().describe('Why the gateway declined the charge'),
    description: z.string().nullable().describe('Description of a charge, as sent'),
    card: z
      .object({
        brand: z.string().nullable().describe('Card brand (`visa`, `mastercard`, …)'),
        last4: z.string().nullable().describe('Last four digits of the card number'),
      })
      .nullable()
      .describe('The card paid with, when it was a card'),
    notify_url: z.string().nullable().describe('Where sale.* notifications are sent'),
    operations: z.array(operationOut).describe('History, oldest first'),
    ...timestamps,
  })
  .meta({ id: 'Sale', description: 'What a payment or a charge moved, with the history of its operations' });

const actionBody = z
  .strictObject({
    amount: positiveAmount.optional().describe('Major units; default: all that the action can move now'),
  })
  .meta({ id: 'SaleAction', description: 'An action on a sale\'s money; no body (or `{}`) moves all that the action can' });

const listQuery = pageQuery.extend({
  status: z.enum(SALE_STATUSES).optional().describe('Only sales in this state'),
  transaction_id: ref('transaction').optional().describe('Only the sales of this transaction'),
  authorization_id: ref('authorization').optional().describe('Only the charges of this authorization'),
  currency: z.string().max(3).optional().describe('Only sales in this currency'),
});

function conflict(action: SaleAction, sale: StoredSale, requested: number): ApiError {
  const { currency } = sale.row;
  const fmt = (units: number) => `${unitsToDecimalString(units, exponentOf(currency))} ${currency}`;
  const limit = actionLimit(action, sale.row);
  const what = action === 'refund' ? 'refundable' : 'held';
  const asked = requested > 0 ? `${action} of ${fmt(requested)} refused: ` : `nothing to ${action}: `;
  return new ApiError('conflict', `${asked}${ACTION_RULES[action]} (${what} now: ${fmt(limit)}); nothing was changed`);
}

const action = (name: SaleAction, summary: string, description: string) =>
  route({
    method: 'post',
    path: `/sale/{id}/${name}/`,
    operationId: `${name}Sale`,
    summary,
    description,
    example: { request: { amount: 10 }, response: SALE_EXAMPLE },
    tag: 'Sale',
    body: actionBody,
    response: saleOut,
    status: 200,
    problems: [502],
    movesMoney: true,
    async handler({ env, params, body, deps, db }) {
      const sale = await getSale(db, env.id, params.id!);
      if (!sale) throw new ApiError('not_found', 'No sale with this id');
      const amount = body.amount === undefined ? actionLimit(name, sale.row) : toMinor(body.amount, sale.row.currency, 'amount');
      if (amount <= 0) throw conflict(name, sale, 0);
      const outcome = await moveSaleMoney(deps, { sale: sale.row, action: name, amount });
      switch (outcome.kind) {
        case 'done':
          return presentSale(outcome.sale);
        case 'conflict':
          // The amounts moved since they were read: explain with the ones in force now.
          throw conflict(name, (await getSale(db, env.id, sale.row.id))!, amount);
        case 'refused':
          throw new ApiError(
            'conflict',
            `refund refused: destination wallet ${outcome.wallet} no longer holds its part of the refund; nothing was changed`,
          );
        case 'gateway_failed':
          throw new ApiError('gateway_error', `The gateway refused the ${name}: ${outcome.reason}; nothing was changed`);
      }
    },
  });

export const saleRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/sale/',
    operationId: 'listSales',
    summary: 'List sales, newest first',
    description: 'The sales of your environment (payments and charges), newest first; filter by status, transaction, authorization or currency.',
    example: { response: page([SALE_EXAMPLE]) },
    tag: 'Sale',
    query: listQuery,
    response: pageEnvelopeSchema(saleOut),
    status: 200,
    async handler({ env, query, req, baseUrl, db }) {
      const { page, page_size, ...filters } = query;
      const { count, items } = await listSales(db, env.id, filters, { page, page_size });
      return pageEnvelope(req, baseUrl, { page, page_size }, count, items.map(presentSale));
    },
  }),
  route({
    method: 'get',
    path: '/sale/{id}/',
    operationId: 'getSale',
    summary: 'Get a sale with its history of operations',
    description: 'One sale with its amounts (held, captured, refunded, voided) and its operations, oldest first.',
    example: { response: SALE_EXAMPLE },
    tag: 'Sale',
    response: saleOut,
    status: 200,
    async handler({ env, params, db }) {
      const sale = await getSale(db, env.id, params.id!);
      if (!sale) throw new ApiError('not_found', 'No sale with this id');
      return presentSale(sale);
    },
  }),
  action(
    'capture',
    'Capture held funds, all or `amount`',
    'Captures funds held by an authorizing payment: `amount`, or all that is held when the body is empty. More than is held is a 409; a gateway failure is a 502 and nothing moves.',
  ),
  action(
    'refund',
    'Refund captured funds, all that is not yet refunded or `amount`',
    'Refunds captured funds: `amount`, or all that is refundable when the body is empty. More than is refundable is a 409; destination wallets give their shares back proportionally.',
  ),
  action(
    'void',
    'Release held funds, all or `amount`',
    'Releases funds held and not captured: `amount`, or all that is held when the body is empty. More than is held is a 409.',
  ),
];
