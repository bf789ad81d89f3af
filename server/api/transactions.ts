import { z } from 'zod';
import { TEXT_MESSAGES } from '../../widget/fields/text';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { found, RecordedError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { getTransaction, listTransactions } from '../store/transactions';
import { presentTransaction } from '../present/transaction';
import type { Deps } from '../deps';
import { payFromSources } from '../payments/sources';
import type { StoredTransaction } from '../store/transactions';
import { buildTransaction, createTransaction, destinationShares, refuseWithoutPaymentMethod, resolveSources } from '../transactions/create';
import { checkNotifyUrl } from '../commands/notify-url';
import { MAX_JSON_DEPTH, nestedTooDeep } from '../domain/json-depth';
import { currencyCode, currencyOut, customerEmail, dateTime, dateTimeInput, eitherOf, exact, freeText, httpUrl, jsonStringsAreText, livemode, moneyAmount, name, objectId, positiveMoneyAmount, ref, returnUrl, text, timestamps } from '../schemas/fields';
import { TRANSACTION_EXAMPLE, TRANSACTION_REQUEST, page } from './examples';

const LANGUAGE = z.enum(['au', 'es', 'en', 'fr']);

const inlineProduct = z.strictObject({
  product_id: text(255).optional().describe('Your external identifier'),
  name: name.describe('Name of the product, shown on the payment screen'),
  price: moneyAmount('Unit price in major units of the transaction currency'),
  description: freeText(2000).optional().describe('Description of the product'),
}).describe('A product defined inline for this transaction');

const productLine = eitherOf(
  z.strictObject({
    amount: z.number().gt(0).max(1_000_000).describe('Quantity; up to 3 decimals'),
    product_id: ref('product').optional().describe('`id` of a product in your catalogue'),
    product: inlineProduct.optional().describe('A product defined inline for this transaction'),
  }),
  'product_id',
  'product',
).describe('A product line: a quantity of a catalogue product (`product_id`) or of one defined inline (`product`)');

const sourceElement = eitherOf(
  z.strictObject({
    amount: positiveMoneyAmount('Paid by this source, in major units'),
    wallet_id: ref('wallet').optional().describe('`id` of a wallet of this environment to pay from'),
    authorization_id: ref('authorization').optional().describe('`id` of an active authorization (a stored card) to charge'),
  }),
  'wallet_id',
  'authorization_id',
).describe('Where part of the funds come from: a wallet or an authorization (stored card)');

const destinationElement = z.strictObject({
  wallet_id: ref('wallet').describe('`id` of a wallet of this environment, in the transaction currency'),
  amount: positiveMoneyAmount("The wallet's share of the sale, in major units"),
  concept: freeText(255).optional().describe("Shown on the wallet's ledger entry"),
}).describe('A wallet credited with a share of the sale');

const transactionCreate = z
  .strictObject({
    order_id: text(255).optional().describe('Your external identifier (your order number)'),
    currency: currencyCode.describe('Currency of the transaction, ISO 4217 code in capitals'),
    note: freeText(2000).optional().describe('A note for yourself; not shown to the customer'),
    extra: freeText(10_000)
      .superRefine((s, ctx) => {
        let value: unknown;
        try {
          value = JSON.parse(s);
        } catch {
          return void ctx.addIssue({ code: 'custom', message: 'must be a JSON text' });
        }
        // As deep as a body may be (http/body.ts): a client reads extra back and walks it.
        if (nestedTooDeep(value)) return void ctx.addIssue({ code: 'custom', message: `must not nest deeper than ${MAX_JSON_DEPTH} levels` });
        // Escapes (`\u0000`) would bring back what the text rule refuses.
        if (!jsonStringsAreText(value)) ctx.addIssue({ code: 'custom', message: `its strings ${TEXT_MESSAGES.free}` });
      })
      // JSON Schema's own words for "a string holding JSON".
      .meta({ contentMediaType: 'application/json' })
      .optional()
      .describe('Extra values of yours, a JSON text, returned as sent'),
    return_url: returnUrl.optional().describe('The customer is sent here (303) after a successful payment; an absolute http(s) URL'),
    cancel_url: returnUrl.optional().describe('The customer is sent here (303) after cancelling the payment; an absolute http(s) URL'),
    notify_url: httpUrl.optional().describe('State-change notifications (transaction.* events) are sent here'),
    gateway_selected: z.boolean().default(false).describe('Whether the first gateway is preselected when the customer opens the payment screen'),
    language: LANGUAGE.optional().describe('Language of the payment screen; else the browser\'s, else `en`'),
    customer_email: customerEmail.optional().describe('Where receipts of the payment and of each refund are sent, in `language`'),
    expired_date: dateTimeInput
      .optional()
      .describe('ISO 8601 date-time, in the future; default one week after creation'),
    products: z.array(productLine).min(1).max(1000).describe('Product lines, 1 to 1000'),
    tax_value: moneyAmount('Amount to pay related to tax, in major units; overrides what `tax` gives').optional(),
    tax_name: text(255).optional().describe('Name of the tax included; overrides what `tax` gives'),
    tax: ref('tax').optional().describe('`id` of a tax of your catalogue: its rate of items_price and its name'),
    shipping_value: moneyAmount('Amount to pay related to shipping, in major units; overrides what `shipping` gives').optional(),
    shipping_name: text(255).optional().describe('Name of the shipping included; overrides what `shipping` gives'),
    shipping: ref('shipping option').optional().describe('`id` of a shipping option of your catalogue: its price and name'),
    coupon_value: moneyAmount('Amount to deduct related to the coupon, in major units; overrides what `coupon` gives').optional(),
    coupon_name: text(255).optional().describe('Name of the coupon included; overrides what `coupon` gives'),
    coupon: ref('coupon').optional().describe('`id` of a coupon of your catalogue: a fixed amount or a percentage of items_price'),
    authorize: z.boolean().default(false).describe('Whether funds are held (captured or voided later) rather than charged, and the card stored as an authorization'),
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
  .meta({ id: 'Transaction', description: 'A payment request: product lines, totals and the payment screen' });

const lineOut = z
  .object({
    amount: z.number().describe('Quantity of the product'),
    product_id: z.uuid().nullable().describe('`id` of the catalogue product, when the line used one'),
    product: z
      .object({
        product_id: z.string().nullable().describe('Your external identifier of the product'),
        name: z.string().describe('Name of the product'),
        price: z.number().describe('Unit price in major units of the transaction currency'),
        description: z.string().nullable().describe('Description of the product'),
      })
      .describe('The product as it was when the transaction was created'),
    total: z.number().describe('round(amount × price), in major units'),
  })
  .describe('A product line with its total');

export const transactionOut = z
  .object({
    id: objectId,
    livemode,
    token: z.string().describe('Transaction token that represents the transaction to the end user (in `payment_url`); not the `id`'),
    status: z.enum(['N', 'C', 'D', 'E']).describe('`N` new (payable), `D` paid, `C` cancelled by the customer, `E` expired'),
    payment_url: z.url().describe('The hosted payment screen to send the customer to'),
    order_id: z.string().nullable().describe('Your external identifier'),
    currency: currencyOut,
    note: z.string().nullable().describe('Your note, as sent'),
    extra: z.string().nullable().describe('Your extra values, a JSON text'),
    return_url: z.string().nullable().describe('Where the customer is sent after paying'),
    cancel_url: z.string().nullable().describe('Where the customer is sent after cancelling'),
    notify_url: z.string().nullable().describe('Where state-change notifications are sent'),
    gateway_selected: z.boolean().describe('Whether the first gateway is preselected on the payment screen'),
    language: LANGUAGE.nullable().describe('Language of the payment screen; null: the browser\'s'),
    customer_email: z.string().nullable().describe('Where receipts are sent; null: no receipts (or erased)'),
    expired_date: dateTime.describe('When the transaction expires if unpaid (ISO 8601, UTC)'),
    products: z.array(lineOut).describe('Product lines'),
    tax_value: z.number().describe('Tax amount, in major units'),
    tax_name: z.string().nullable().describe('Name of the tax'),
    tax: z.uuid().nullable().describe('`id` of the catalogue tax used, if any'),
    shipping_value: z.number().describe('Shipping amount, in major units'),
    shipping_name: z.string().nullable().describe('Name of the shipping'),
    shipping: z.uuid().nullable().describe('`id` of the catalogue shipping option used, if any'),
    coupon_value: z.number().describe('Amount deducted by the coupon, in major units'),
    coupon_name: z.string().nullable().describe('Name of the coupon'),
    coupon: z.uuid().nullable().describe('`id` of the catalogue coupon used, if any'),
    authorize: z.boolean().describe('Whether the payment holds the funds (capture later) and stores the card'),
    source: z.array(sourceElement).nullable().describe('Where the funds came from, when paid at creation'),
    destination: z.array(destinationElement).nullable().describe('Wallets credited with shares of the sale'),
    items_price: z.number().describe('Total price of all product lines: Σ round(amount × price), in major units'),
    total_price: z.number().describe('Price to pay: items_price + tax_value + shipping_value − coupon_value, never below 0'),
    ...timestamps,
  })
  .meta({ id: 'Transaction', description: 'A payment request: product lines, totals and the payment screen' });

/**
 * A transaction paid at once from its sources, or a 402 naming the source that failed;
 * `pending` when a card's charge has an unknown outcome (the transaction is still `N`).
 */
async function createPaidFromSources(
  deps: Deps,
  envId: string,
  body: z.output<typeof transactionCreate>,
  now: Date,
): Promise<{ tx: StoredTransaction; pending: boolean }> {
  const db = deps.database.db;
  const tx = await buildTransaction(db, envId, body, now);
  const sources = await resolveSources(db, envId, body);
  const paid: StoredTransaction = { ...tx, row: { ...tx.row, status: 'D' } };
  const outcome = await payFromSources(deps, { tx: paid, sources, destinations: destinationShares(body) });
  if (outcome.kind === 'pending') return { tx, pending: true };
  if (outcome.kind === 'failed') {
    const path = `source.${outcome.index}`;
    // Recorded: the charges and their refunds happened; a repeat with the same key replays this answer.
    throw new RecordedError('payment_declined', `${path}: ${outcome.reason}; nothing was charged or moved`, [{ path, message: outcome.reason }]);
  }
  return { tx: paid, pending: false };
}

const listQuery = pageQuery.extend({
  status: z.enum(['N', 'C', 'D', 'E']).optional().describe('Only transactions in this state'),
  order_id: exact(255).optional().describe('Only transactions with this `order_id`'),
  currency: exact(3).optional().describe('Only transactions in this currency'),
});

export const transactionRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/transaction/',
    operationId: 'listTransactions',
    summary: 'List transactions, newest first',
    description: 'The transactions of your environment, newest first, a page at a time; filter by `status`, `order_id` or `currency`.',
    example: { response: page([TRANSACTION_EXAMPLE]) },
    tag: 'Transaction',
    query: listQuery,
    response: pageEnvelopeSchema(transactionOut),
    status: 200,
    async handler(ctx) {
      const now = ctx.deps.now();
      return listPage(
        ctx,
        (filters, page) => listTransactions(ctx.db, ctx.env.id, { ...filters, now: now.toISOString() }, page),
        (tx) => presentTransaction(tx, now, ctx.baseUrl),
      );
    },
  }),
  route({
    method: 'post',
    path: '/transaction/',
    operationId: 'createTransaction',
    summary: 'Create a transaction and its payment screen',
    description:
      'Creates a payment request and answers with its `payment_url`, the hosted screen to send the customer to. ' +
      'Totals are computed from the lines and the tax, shipping and coupon. With `source`, the transaction is paid at once ' +
      'from wallets and stored cards, all or nothing (402 naming the source that failed). Without `source`, a gateway of the ' +
      "environment's mode must accept `currency` (409 otherwise: a live environment with no real gateway for it).",
    example: { request: TRANSACTION_REQUEST, response: TRANSACTION_EXAMPLE },
    tag: 'Transaction',
    body: transactionCreate,
    response: transactionOut,
    status: 201,
    problems: [402],
    accepted:
      'Paid from `source`, a card charge has an unknown outcome (its gateway did not answer): the transaction, `N` until the charge is proven, then paid (`D`) or not (`C`, every charge refunded)',
    movesMoney: (body) => Boolean(body.source?.length),
    // A charge per stored card, and a refund of each if a later source fails.
    gatewayCalls: (body) => 2 * (body.source ?? []).filter((s) => s.authorization_id).length,
    async handler({ env, body, deps, baseUrl, db, accepted }) {
      if (body.notify_url) checkNotifyUrl(body.notify_url, deps.config);
      const now = deps.now();
      if (!body.source?.length) {
        const live = env.mode === 'live';
        const gateways = await deps.gateways.of(env.id, db);
        const count = (needs: { hold?: boolean; split?: boolean }) => gateways.forCurrency(body.currency, live, needs).length;
        const offered = { any: count({}), holding: count({ hold: true }), splitting: count({ split: true }) };
        refuseWithoutPaymentMethod(offered, body);
        return presentTransaction(await createTransaction(db, env.id, body, now), now, baseUrl);
      }
      const { tx, pending } = await createPaidFromSources(deps, env.id, body, now);
      if (pending) accepted();
      return presentTransaction(tx, now, baseUrl);
    },
  }),
  route({
    method: 'get',
    path: '/transaction/{id}/',
    operationId: 'getTransaction',
    summary: 'Get a transaction',
    description: 'One transaction with its current status (an unpaid one past `expired_date` reads as `E`).',
    example: { response: TRANSACTION_EXAMPLE },
    tag: 'Transaction',
    response: transactionOut,
    status: 200,
    async handler({ env, params, deps, baseUrl, db }) {
      const tx = found(await getTransaction(db, env.id, params.id!), 'transaction');
      return presentTransaction(tx, deps.now(), baseUrl);
    },
  }),
];
