import { z } from 'zod';
import { unitsToDecimalString } from '../domain/money';
import { ACTION_RULES, actionLimit, SALE_STATUSES, type SaleAction } from '../domain/sales';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { moveSaleMoney } from '../payments/sale-actions';
import { presentSale } from '../present/sale';
import { getSale, listSales, type StoredSale } from '../store/sales';
import { exponentOf, positiveAmount, ref, toMinor } from './fields';

// Sales: what a payment or a charge made, and the three actions on its money.

const operationOut = z.object({
  id: z.uuid(),
  kind: z.enum(['authorize', 'capture', 'refund', 'void', 'charge', 'decline']),
  amount: z.number(),
  created: z.string(),
});

export const saleOut = z
  .object({
    id: z.uuid(),
    status: z.enum(SALE_STATUSES).describe('Derived from the amounts; see the docs'),
    transaction_id: z.uuid().nullable().describe('The paid transaction; null for a charge of an authorization'),
    authorization_id: z.uuid().nullable().describe('The stored payment method, when there is one'),
    gateway: z.uuid().describe('`id` of the gateway'),
    currency: z.string(),
    amount: z.number().describe('What the payment or charge was for'),
    held: z.number().describe('On hold now: can be captured or voided'),
    captured: z.number(),
    refunded: z.number(),
    voided: z.number(),
    refundable: z.number().describe('captured − refunded'),
    failure: z.enum(['declined', 'insufficient_funds']).nullable().describe('Why the gateway declined the charge'),
    description: z.string().nullable(),
    card: z.object({ brand: z.string().nullable(), last4: z.string().nullable() }).nullable(),
    notify_url: z.string().nullable(),
    operations: z.array(operationOut).describe('History, oldest first'),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Sale' });

const actionBody = z
  .strictObject({
    amount: positiveAmount.optional().describe('Major units; default: all that the action can move now'),
  })
  .meta({ id: 'SaleAction' });

const listQuery = pageQuery.extend({
  status: z.enum(SALE_STATUSES).optional(),
  transaction_id: ref('transaction').optional(),
  authorization_id: ref('authorization').optional(),
  currency: z.string().max(3).optional(),
});

function conflict(action: SaleAction, sale: StoredSale, requested: number): ApiError {
  const { currency } = sale.row;
  const fmt = (units: number) => `${unitsToDecimalString(units, exponentOf(currency))} ${currency}`;
  const limit = actionLimit(action, sale.row);
  const what = action === 'refund' ? 'refundable' : 'held';
  const asked = requested > 0 ? `${action} of ${fmt(requested)} refused: ` : `nothing to ${action}: `;
  return new ApiError('conflict', `${asked}${ACTION_RULES[action]} (${what} now: ${fmt(limit)}); nothing was changed`);
}

const action = (name: SaleAction, summary: string) =>
  route({
    method: 'post',
    path: `/sale/{id}/${name}/`,
    summary,
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
        case 'gateway_failed':
          throw new ApiError('gateway_error', `The gateway refused the ${name}: ${outcome.reason}; nothing was changed`);
      }
    },
  });

export const saleRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/sale/',
    summary: 'List sales, newest first',
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
    summary: 'Get a sale with its history of operations',
    tag: 'Sale',
    response: saleOut,
    status: 200,
    async handler({ env, params, db }) {
      const sale = await getSale(db, env.id, params.id!);
      if (!sale) throw new ApiError('not_found', 'No sale with this id');
      return presentSale(sale);
    },
  }),
  action('capture', 'Capture held funds, all or `amount`'),
  action('refund', 'Refund captured funds, all that is not yet refunded or `amount`'),
  action('void', 'Release held funds, all or `amount`'),
];
