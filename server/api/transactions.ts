import { z } from 'zod';
import { findCurrency } from '../domain/currencies';
import { newToken, uuidv7 } from '../domain/ids';
import { MAX_UNITS, toUnits, unitsToDecimalString, unitsToNumber } from '../domain/money';
import { type Adjustment, computeTotals, QUANTITY_SCALE } from '../domain/pricing';
import { effectiveStatus } from '../domain/transaction-status';
import { pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, fieldError, RecordedError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import type { Db } from '../store/db';
import { getItem } from '../store/catalogue';
import { getWallet } from '../store/ledger';
import { getAuthorization } from '../store/sales';
import { payFromSources, type Source } from '../payments/sources';
import type { Deps } from '../deps';
import type { TransactionLineRow, TransactionRow } from '../store/schema';
import {
  getTransaction,
  insertTransaction,
  listTransactions,
  type StoredTransaction,
} from '../store/transactions';
import { checkNotifyUrl } from './notify-url';
import { amount, currencyCode, httpUrl, name, positiveAmount, ref, text, toMinor, toScaled } from './fields';

const LANGUAGE = z.enum(['au', 'es', 'en', 'fr']);
const WEEK_MS = 7 * 24 * 60 * 60 * 1000;

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

const sourceElement = z
  .strictObject({
    amount: positiveAmount.describe('Paid by this source, in major units'),
    wallet_id: ref('wallet').optional().describe('`id` of a wallet of this environment to pay from'),
    authorization_id: ref('authorization').optional().describe('`id` of an active authorization (a stored card) to charge'),
  })
  .refine((m) => (m.wallet_id === undefined) !== (m.authorization_id === undefined), {
    message: 'send either wallet_id or authorization_id',
    path: ['wallet_id'],
  });

const destinationElement = z.strictObject({
  wallet_id: ref('wallet').describe('`id` of a wallet of this environment, in the transaction currency'),
  amount: positiveAmount.describe("The wallet's share of the sale, in major units"),
  concept: text(255).optional().describe("Shown on the wallet's ledger entry"),
});

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
    source: z
      .array(sourceElement)
      .max(50)
      .nullable()
      .optional()
      .describe('Pays the transaction at creation from wallets and stored cards, all or nothing; the amounts add up to total_price'),
    destination: z
      .array(destinationElement)
      .max(50)
      .nullable()
      .optional()
      .describe('Wallets credited with these shares when the sale is paid; the rest stays with the merchant. Not with authorize'),
  })
  .meta({ id: 'TransactionCreate' });
type TransactionCreate = z.output<typeof transactionCreate>;

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
    source: z.array(sourceElement).nullable(),
    destination: z.array(destinationElement).nullable(),
    items_price: z.number(),
    total_price: z.number(),
    created: z.string(),
    updated: z.string(),
  })
  .meta({ id: 'Transaction' });

export function presentTransaction(tx: StoredTransaction, now: Date, baseUrl: string): z.input<typeof transactionOut> {
  const { row, lines } = tx;
  const exp = findCurrency(row.currency)?.exponent ?? 2;
  const money = (units: number) => unitsToNumber(units, exp);
  return {
    id: row.id,
    token: row.token,
    status: effectiveStatus(row.status, row.expired_at, now),
    payment_url: `${baseUrl}/pay/${row.token}/`,
    order_id: row.order_id,
    currency: row.currency,
    note: row.note,
    extra: row.extra,
    return_url: row.return_url,
    cancel_url: row.cancel_url,
    notify_url: row.notify_url,
    gateway_selected: row.gateway_selected === 1,
    language: row.language as z.infer<typeof LANGUAGE> | null,
    expired_date: row.expired_at,
    products: lines.map((l) => ({
      amount: Number(l.quantity),
      product_id: l.product_ref,
      product: { product_id: l.product_id, name: l.name, price: money(l.unit_price), description: l.description },
      total: money(l.line_total),
    })),
    tax_value: money(row.tax_value),
    tax_name: row.tax_name,
    tax: row.tax_ref,
    shipping_value: money(row.shipping_value),
    shipping_name: row.shipping_name,
    shipping: row.shipping_ref,
    coupon_value: money(row.coupon_value),
    coupon_name: row.coupon_name,
    coupon: row.coupon_ref,
    authorize: row.authorize === 1,
    source: row.source ? JSON.parse(row.source) : null,
    destination: row.destination ? JSON.parse(row.destination) : null,
    items_price: money(row.items_price),
    total_price: money(row.total_price),
    created: row.created_at,
    updated: row.updated_at,
  };
}

interface Resolved {
  lines: (Omit<TransactionLineRow, 'id' | 'transaction_id' | 'position' | 'line_total'> & {
    scaledQuantity: bigint;
  })[];
  tax: { ref: string | null; name: string | null; adjustment: Adjustment };
  shipping: { ref: string | null; name: string | null; adjustment: Adjustment };
  coupon: { ref: string | null; name: string | null; adjustment: Adjustment };
}

/** Looks up every referenced object in the caller's environment and converts amounts to minor units. */
async function resolve(db: Db, envId: string, body: TransactionCreate): Promise<Resolved> {
  const cur = body.currency;
  const sameCurrency = (path: string, currency: string | null) => {
    if (currency && currency !== cur) throw fieldError(path, `is priced in ${currency}, the transaction in ${cur}`);
  };
  const lines = await Promise.all(
    body.products.map(async (line, i) => {
      const quantity = toScaled(line.amount, QUANTITY_SCALE, `products.${i}.amount`);
      if (line.product) {
        const p = line.product;
        return {
          product_ref: null,
          product_id: p.product_id ?? null,
          name: p.name,
          description: p.description ?? null,
          unit_price: toMinor(p.price, cur, `products.${i}.product.price`),
          quantity: unitsToDecimalString(quantity, QUANTITY_SCALE),
          scaledQuantity: quantity,
        };
      }
      const path = `products.${i}.product_id`;
      const product = await getItem(db, 'products', envId, line.product_id!);
      if (!product) throw fieldError(path, 'is not a product of this environment');
      if (!product.enabled) throw fieldError(path, 'is a disabled product');
      sameCurrency(path, product.currency);
      return {
        product_ref: product.id,
        product_id: product.product_id,
        name: product.name,
        description: product.description,
        unit_price: product.price,
        quantity: unitsToDecimalString(quantity, QUANTITY_SCALE),
        scaledQuantity: quantity,
      };
    }),
  );

  // A referenced tax / shipping / coupon supplies name and amount; explicit *_value and
  // *_name fields win over it.
  type Referenced = { id: string; name: string; currency: string | null; adjustment: NonNullable<Adjustment> };
  const adjustment = async (
    field: 'tax' | 'shipping' | 'coupon',
    what: string,
    load: (id: string) => Promise<Referenced | undefined>,
  ): Promise<Resolved['tax']> => {
    const value = body[`${field}_value`];
    const name = body[`${field}_name`] ?? null;
    const explicit: Adjustment = value === undefined ? null : { amount: BigInt(toMinor(value, cur, `${field}_value`)) };
    const id = body[field];
    if (!id) return { ref: null, name, adjustment: explicit };
    const ref = await load(id);
    if (!ref) throw fieldError(field, `is not a ${what} of this environment`);
    if (!explicit) sameCurrency(field, ref.currency);
    return { ref: ref.id, name: name ?? ref.name, adjustment: explicit ?? ref.adjustment };
  };
  const tax = await adjustment('tax', 'tax', async (id) => {
    const row = await getItem(db, 'taxes', envId, id);
    return row && { id: row.id, name: row.name, currency: null, adjustment: { percent: BigInt(row.rate_e4) } };
  });
  const shipping = await adjustment('shipping', 'shipping option', async (id) => {
    const row = await getItem(db, 'shipping', envId, id);
    return row && { id: row.id, name: row.name, currency: row.currency, adjustment: { amount: BigInt(row.price) } };
  });
  const coupon = await adjustment('coupon', 'coupon', async (id) => {
    const row = await getItem(db, 'coupons', envId, id);
    if (!row) return undefined;
    const value = BigInt(row.value);
    return {
      id: row.id,
      name: row.name,
      currency: row.currency,
      adjustment: row.kind === 'fixed' ? { amount: value } : { percent: value },
    };
  });
  return { lines, tax, shipping, coupon };
}

function checkMovements(path: string, list: { amount: number }[] | null | undefined, currency: string, total: bigint) {
  if (!list) return;
  const sum = list.reduce((acc, m, i) => acc + BigInt(toMinor(m.amount, currency, `${path}.${i}.amount`)), 0n);
  if (sum > total) throw fieldError(path, 'amounts add up to more than total_price');
}

/** Destination wallets exist here, in the transaction currency, enabled; a split is of a captured sale. */
async function checkDestinations(db: Db, envId: string, body: TransactionCreate) {
  if (!body.destination?.length) return;
  if (body.authorize) throw fieldError('destination', 'cannot be used with authorize: a split is made of captured money');
  for (const [i, d] of body.destination.entries()) {
    const path = `destination.${i}.wallet_id`;
    const wallet = await getWallet(db, envId, d.wallet_id);
    if (!wallet) throw fieldError(path, 'is not a wallet of this environment');
    if (wallet.currency !== body.currency) throw fieldError(path, `is a wallet in ${wallet.currency}, the transaction is in ${body.currency}`);
    if (!wallet.enabled) throw new ApiError('conflict', `${path}: is disabled: no money moves into it`, [{ path, message: 'is disabled' }]);
  }
}

/** Also used by the demo page (server/demo/routes.ts), which creates its transactions in process. */
export async function createTransaction(db: Db, envId: string, body: TransactionCreate, now: Date): Promise<StoredTransaction> {
  const tx = await buildTransaction(db, envId, body, now);
  await insertTransaction(db, tx);
  return tx;
}

/** The transaction as it would be stored, checked; nothing written. */
async function buildTransaction(db: Db, envId: string, body: TransactionCreate, now: Date): Promise<StoredTransaction> {
  const expiredAt = body.expired_date ? new Date(body.expired_date) : new Date(now.getTime() + WEEK_MS);
  if (expiredAt.getTime() <= now.getTime()) throw fieldError('expired_date', 'must be in the future');

  const resolved = await resolve(db, envId, body);
  const totals = computeTotals({
    lines: resolved.lines.map((l) => ({
      unitPrice: BigInt(l.unit_price),
      quantity: l.scaledQuantity,
    })),
    tax: resolved.tax.adjustment,
    shipping: resolved.shipping.adjustment,
    coupon: resolved.coupon.adjustment,
  });
  // Each price and quantity is bounded, their products and sums are not: past MAX_UNITS a
  // total no longer fits the 64-bit columns (a 500) or a JSON number exactly.
  const tooLarge = totals.lineTotals.findIndex((t) => t > MAX_UNITS);
  if (tooLarge >= 0) throw fieldError(`products.${tooLarge}`, 'amount × price is too large');
  if (totals.itemsPrice > MAX_UNITS) throw fieldError('products', 'the lines add up to too large an amount');
  if (body.source?.length) {
    const sum = body.source.reduce((acc, m, i) => acc + BigInt(toMinor(m.amount, body.currency, `source.${i}.amount`)), 0n);
    if (sum !== totals.totalPrice) {
      const exp = findCurrency(body.currency)?.exponent ?? 2;
      const gap = unitsToDecimalString(sum - totals.totalPrice, exp);
      throw fieldError('source', `amounts add up to ${unitsToDecimalString(sum, exp)}, total_price is ${unitsToDecimalString(totals.totalPrice, exp)} (difference ${gap})`);
    }
    if (body.authorize) throw fieldError('source', 'cannot be used with authorize: a source pays at once');
  }
  checkMovements('destination', body.destination, body.currency, totals.totalPrice);
  await checkDestinations(db, envId, body);

  const id = uuidv7(now.getTime());
  const at = now.toISOString();
  const row: TransactionRow = {
    id,
    environment_id: envId,
    token: newToken(),
    order_id: body.order_id ?? null,
    currency: body.currency,
    note: body.note ?? null,
    extra: body.extra ?? null,
    return_url: body.return_url ?? null,
    cancel_url: body.cancel_url ?? null,
    notify_url: body.notify_url ?? null,
    gateway_selected: body.gateway_selected ? 1 : 0,
    language: body.language ?? null,
    expired_at: expiredAt.toISOString(),
    authorize: body.authorize ? 1 : 0,
    tax_ref: resolved.tax.ref,
    tax_name: resolved.tax.name,
    tax_value: Number(totals.taxValue),
    shipping_ref: resolved.shipping.ref,
    shipping_name: resolved.shipping.name,
    shipping_value: Number(totals.shippingValue),
    coupon_ref: resolved.coupon.ref,
    coupon_name: resolved.coupon.name,
    coupon_value: Number(totals.couponValue),
    items_price: Number(totals.itemsPrice),
    total_price: Number(totals.totalPrice),
    source: body.source ? JSON.stringify(body.source) : null,
    destination: body.destination ? JSON.stringify(body.destination) : null,
    status: 'N',
    created_at: at,
    updated_at: at,
  };
  const lines = resolved.lines.map(({ scaledQuantity: _, ...l }, i) => ({
    ...l,
    id: uuidv7(now.getTime()),
    transaction_id: id,
    position: i,
    line_total: Number(totals.lineTotals[i]),
  }));
  return { row, lines };
}

/** The sources with their referenced objects, in minor units; a 400 naming a source that does not resolve. */
async function resolveSources(db: Db, envId: string, body: TransactionCreate): Promise<Source[]> {
  return Promise.all(
    (body.source ?? []).map(async (s, index): Promise<Source> => {
      const amount = toMinor(s.amount, body.currency, `source.${index}.amount`);
      if (s.wallet_id !== undefined) {
        const path = `source.${index}.wallet_id`;
        const wallet = await getWallet(db, envId, s.wallet_id);
        if (!wallet) throw fieldError(path, 'is not a wallet of this environment');
        if (wallet.currency !== body.currency) throw fieldError(path, `is a wallet in ${wallet.currency}, the transaction is in ${body.currency}`);
        return { index, amount, wallet: wallet.id };
      }
      const path = `source.${index}.authorization_id`;
      const authorization = await getAuthorization(db, envId, s.authorization_id!);
      if (!authorization || authorization.status !== 'active') throw fieldError(path, 'is not an active authorization of this environment');
      return { index, amount, authorization };
    }),
  );
}

/** Creates a transaction paid at once from its sources, or answers 402 naming the source that failed. */
async function createPaidFromSources(deps: Deps, envId: string, body: TransactionCreate, now: Date): Promise<StoredTransaction> {
  const db = deps.database.db;
  const tx = await buildTransaction(db, envId, body, now);
  const sources = await resolveSources(db, envId, body);
  const exp = findCurrency(body.currency)?.exponent ?? 2;
  const destinations = (body.destination ?? []).map((d) => ({ wallet: d.wallet_id, amount: toUnits(d.amount, exp) }));
  const paid = { ...tx, row: { ...tx.row, status: 'D' } };
  const outcome = await payFromSources(deps, { tx: paid, sources, destinations });
  if (outcome.kind === 'failed') {
    const path = `source.${outcome.index}`;
    // Recorded: the charges and their refunds happened; a repeat with the same key replays this answer.
    throw new RecordedError('payment_declined', `${path}: ${outcome.reason}; nothing was charged or moved`, [{ path, message: outcome.reason }]);
  }
  return paid;
}

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
    problems: [402],
    movesMoney: (body) => Boolean(body.source?.length),
    async handler({ env, body, deps, baseUrl, db }) {
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      const now = deps.now();
      const tx = body.source?.length ? await createPaidFromSources(deps, env.id, body, now) : await createTransaction(db, env.id, body, now);
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
