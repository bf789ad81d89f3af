import { z } from 'zod';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { getTransaction, listTransactions } from '../store/transactions';
import { presentTransaction } from '../present/transaction';
import { createTransaction } from '../transactions/create';
import { checkNotifyUrl } from './notify-url';
import { amount, currencyCode, httpUrl, name, positiveAmount, ref, text } from './fields';

const LANGUAGE = z.enum(['au', 'es', 'en', 'fr']);

const inlineProduct = z.strictObject({
  product_id: text(255).optional().describe('Your external identifier'),
  name,
  price: amount.describe('Unit price in major units of the transaction currency'),
  description: text(2000).optional(),
});

const productLine = z
  .strictObject({
    amount: z.number().gt(0).max(1_000_000).describe('Quantity; up to 3 decimals'),
    product_id: ref('product').optional().describe('`id` of a product in your catalogue'),
    product: inlineProduct.optional().describe('A product defined inline for this transaction'),
  })
  .refine((l) => (l.product_id === undefined) !== (l.product === undefined), {
    message: 'send either product_id or product',
    path: ['product_id'],
  });

const movement = z.strictObject({
  amount: positiveAmount,
  wallet_id: ref('wallet').optional(),
  authorization_id: ref('authorization').optional(),
});
const movements = z.array(movement).max(50).nullable();

export const transactionCreate = z
  .strictObject({
    order_id: text(255).optional(),
    currency: currencyCode,
    note: text(2000).optional(),
    extra: text(10_000)
      .refine((s) => {
        try {
          JSON.parse(s);
          return true;
        } catch {
          return false;
        }
      }, 'must be a JSON text')
      .optional(),
    return_url: httpUrl.optional(),
    cancel_url: httpUrl.optional(),
    notify_url: httpUrl.optional(),
    gateway_selected: z.boolean().default(false),
    language: LANGUAGE.optional(),
    expired_date: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('ISO 8601 date-time, in the future; default one week after creation'),
    products: z.array(productLine).min(1).max(1000),
    tax_value: amount.optional(),
    tax_name: text(255).optional(),
    tax: ref('tax').optional(),
    shipping_value: amount.optional(),
    shipping_name: text(255).optional(),
    shipping: ref('shipping option').optional(),
    coupon_value: amount.optional(),
    coupon_name: text(255).optional(),
    coupon: ref('coupon').optional(),
    authorize: z.boolean().default(false),
    source: movements.optional(),
    destination: movements.optional(),
  })
  .meta({ id: 'TransactionCreate' });

const lineOut = z.object({
  amount: z.number(),
  product_id: z.string().nullable().describe('`id` of the catalogue product, when the line used one'),
  product: z.object({
    product_id: z.string().nullable(),
    name: z.string(),
    price: z.number(),
    description: z.string().nullable(),
  }),
  total: z.number().describe('round(amount × price)'),
});

export const transactionOut = z
  .object({
    id: z.uuid(),
    token: z.string(),
    status: z.enum(['N', 'C', 'D', 'E']),
    payment_url: z.string().describe('The hosted payment screen to send the customer to'),
    order_id: z.string().nullable(),
    currency: z.string(),
    note: z.string().nullable(),
    extra: z.string().nullable(),
    return_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    notify_url: z.string().nullable(),
    gateway_selected: z.boolean(),
    language: LANGUAGE.nullable(),
    expired_date: z.string(),
    products: z.array(lineOut),
    tax_value: z.number(),
    tax_name: z.string().nullable(),
    tax: z.string().nullable(),
    shipping_value: z.number(),
    shipping_name: z.string().nullable(),
    shipping: z.string().nullable(),
    coupon_value: z.number(),
    coupon_name: z.string().nullable(),
    coupon: z.string().nullable(),
    authorize: z.boolean(),
    source: z.array(movement).nullable(),
    destination: z.array(movement).nullable(),
    items_price: z.number(),
    total_price: z.number(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Transaction' });

const listQuery = pageQuery.extend({
  status: z.enum(['N', 'C', 'D', 'E']).optional(),
  order_id: z.string().max(255).optional(),
  currency: z.string().max(3).optional(),
});

export const transactionRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/transaction/',
    summary: 'List transactions, newest first',
    tag: 'Transaction',
    query: listQuery,
    response: pageEnvelopeSchema(transactionOut),
    status: 200,
    async handler({ env, query, deps, req, baseUrl, db }) {
      const now = deps.now();
      const { page, page_size, ...filters } = query;
      const { count, items } = await listTransactions(
        db,
        env.id,
        { ...filters, now: now.toISOString() },
        { page, page_size },
      );
      const results = items.map((tx) => presentTransaction(tx, now, baseUrl));
      return pageEnvelope(req, baseUrl, { page, page_size }, count, results);
    },
  }),
  route({
    method: 'post',
    path: '/transaction/',
    summary: 'Create a transaction and its payment screen',
    tag: 'Transaction',
    body: transactionCreate,
    response: transactionOut,
    status: 201,
    async handler({ env, body, deps, baseUrl, db }) {
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      const now = deps.now();
      const tx = await createTransaction(db, env.id, body, now);
      return presentTransaction(tx, now, baseUrl);
    },
  }),
  route({
    method: 'get',
    path: '/transaction/{id}/',
    summary: 'Get a transaction',
    tag: 'Transaction',
    response: transactionOut,
    status: 200,
    async handler({ env, params, deps, baseUrl, db }) {
      const tx = await getTransaction(db, env.id, params.id!);
      if (!tx) throw new ApiError('not_found', 'No transaction with this id');
      return presentTransaction(tx, deps.now(), baseUrl);
    },
  }),
];
