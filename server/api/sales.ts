import { MISSING_CAPABILITY } from '../domain/gateway-capabilities';
import { z } from 'zod';
import { AUTHENTICATION_METHODS, AUTHENTICATION_STATUSES } from '../domain/authentication';
import { unitsToDecimalString } from '../domain/money';
import { ACTION_RULES, actionLimit, awaitingConfirmation, SALE_STATUSES, type SaleAction } from '../domain/sales';
import { OPERATION_REASONS } from '../domain/payment-reference';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, found, inFlight, RecordedError } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { boundStep } from '../payments/outcome';
import { moveSaleMoney } from '../payments/sale-actions';
import { presentSale } from '../present/sale';
import { getSale, listSales, saleRow, type StoredSale } from '../store/sales';
import { exponentOf } from '../domain/currencies';
import { currencyOut, dateTime, exact, livemode, objectId, positiveMoneyAmount, ref, timestamps } from '../schemas/fields';
import { toMinor } from '../http/amounts';
import { page, SALE_EXAMPLE } from './examples';

// Sales: what a payment or a charge made, and the three actions on its money.

const operationOut = z
  .object({
    id: objectId,
    kind: z
      .enum(['authorize', 'capture', 'refund', 'void', 'charge', 'decline', 'refund_failed'])
      .describe('What the operation did; `refund_failed`: a refund the processor had accepted failed later (the bank returned it), its amount refundable again'),
    amount: z.number().describe('How much it moved, in major units of `currency`'),
    reason: z
      .enum(OPERATION_REASONS)
      .nullable()
      .describe("The merchant's reason as given to `POST /v1/sale/{id}/refund/`, `…/capture/` or `…/void/` (or the dashboard's); null when none was given and for other kinds"),
    created: dateTime.describe('When it was recorded (ISO 8601, UTC)'),
  })
  .describe('One movement of the sale\'s money');

const sourceOut = z
  .object({
    wallet_id: z.uuid().nullable().describe('`id` of the wallet that paid this part, or null for a card'),
    authorization_id: z.uuid().nullable().describe('`id` of the authorization (stored card) that paid this part, or null for a wallet'),
    sale_id: z
      .uuid()
      .nullable()
      .describe("A card's charge: `id` of the sale of the authorization that took this part (refunded only through this sale); null for a wallet"),
    amount: z.number().describe('What this source paid, in major units of `currency`'),
    refunded: z.number().describe('What refunds of this sale have given back to this source so far, as confirmed (a card\'s: its charge\'s refunds)'),
  })
  .describe('One source of a sale paid from a transaction\'s `source`');

/** What the merchant's own processor account settled for a sale (docs/processors.md "What settles where"). */
const processorSettlementOut = z
  .object({
    status: z
      .enum(['known', 'pending', 'none', 'not_reported'])
      .describe(
        '`known`: the figures are here; `pending`: captured, figures not read yet; `none`: nothing captured; `not_reported`: the processor gives none per payment (Redsys). Figures are null unless `known`',
      ),
    record: z.string().nullable().describe("The processor's record of the payment: Stripe's balance transaction (`txn_…`)"),
    currency: z.string().nullable().describe('ISO 4217 code the processor settled in (it may have converted the payment)'),
    amount: z.number().nullable().describe('What the processor settled: what was captured'),
    fee: z.number().nullable().describe("The processor's fee (the platform's is the sale's `fee`)"),
    net: z.number().nullable().describe('`amount` − `fee`: what the processor pays the merchant'),
    available_on: dateTime.nullable().describe('When the processor makes `net` available to the merchant'),
  })
  .nullable()
  .describe(
    "null: the platform settles the sale (your balance, payouts). Else your own processor account does, and this is what it settled, in major units of this `currency`. Read-only",
  );

/** How a cardholder was authenticated: on a sale, and on the authorization that stored its card. */
export const authenticationOut = z
  .object({
    status: z
      .enum(AUTHENTICATION_STATUSES)
      .describe('`authenticated`: the cardholder was authenticated; `failed`: the issuer could not authenticate them; `exempt`: not asked (a charge the merchant started)'),
    method: z
      .enum(AUTHENTICATION_METHODS)
      .describe('`challenge`: the customer answered the issuer\'s challenge; `frictionless`: the issuer authenticated them without one; `merchant_initiated`: a charge of a stored card, started by the merchant'),
  })
  .nullable();

export const saleOut = z
  .object({
    id: objectId,
    livemode,
    reference: z
      .string()
      .describe(
        'The reference the customer is shown for this payment: on the paid screen ("Reference 5E6F-7A8B"), on the receipt emails and in the dashboard, where a search finds it. The last eight hex digits of `id`, in capitals, in two groups of four; read-only',
      ),
    status: z
      .enum(SALE_STATUSES)
      .describe('Derived from the amounts; `pending` while a gateway call of the sale has an unknown outcome (it ends as the gateway proves); see the docs'),
    transaction_id: z
      .uuid()
      .nullable()
      .describe('The paid transaction (by the payment page, or at creation from its `source`); null for a charge of an authorization'),
    authorization_id: z.uuid().nullable().describe('The stored payment method, when there is one'),
    gateway: z
      .uuid()
      .describe('`id` of the gateway; for the sale of a transaction paid from its `source`, the nil UUID `00000000-0000-0000-0000-000000000000` (each card source names its charge, whose sale names its gateway)'),
    currency: currencyOut,
    amount: z.number().describe('What the payment or charge was for'),
    held: z.number().describe('On hold at the processor now (a capture or void not yet confirmed still counts as held)'),
    captured: z.number().describe('Captured so far, as the processor has confirmed (refunds included)'),
    refunded: z.number().describe('Refunded so far, as the processor has confirmed'),
    voided: z.number().describe('Released without capture so far, as the processor has confirmed'),
    refundable: z
      .number()
      .describe('What a refund may take now: captured − refunded − refunds not yet confirmed − what an open or lost dispute took (a capture in flight is not refundable yet)'),
    fee: z
      .number()
      .describe("The platform's fees on the sale's captures, charges and refunds so far, as its balance transactions took them; 0 until they are made, a moment after the money moves"),
    processor_settlement: processorSettlementOut,
    disputed: z
      .boolean()
      .describe("Whether the customer's bank has disputed the sale (an inquiry too): see `GET /v1/dispute/?sale=…`. While a dispute is open or once it is lost, its amount is not refundable"),
    failure: z
      .enum(['declined', 'insufficient_funds', 'not_processed', 'authentication_required'])
      .nullable()
      .describe('Why the charge moved no money: the gateway declined it, or (`not_processed`) its outcome was unknown and the gateway proved it never made it'),
    confirm_url: z
      .string()
      .nullable()
      .describe('If `failure` is `authentication_required`: the page where the customer pays (once, 7 days); else null'),
    description: z.string().nullable().describe('Description of a charge, as sent'),
    card: z
      .object({
        brand: z.string().nullable().describe('Card brand (`visa`, `mastercard`, …)'),
        last4: z.string().nullable().describe('Last four digits of the card number'),
      })
      .nullable()
      .describe('The card paid with, when it was a card'),
    authentication: authenticationOut.describe('How the cardholder was authenticated (3-D Secure-like), or null when nobody was asked'),
    notify_url: z.string().nullable().describe('Where sale.* notifications are sent'),
    operations: z.array(operationOut).describe('History, oldest first'),
    hold_expired: dateTime
      .nullable()
      .describe('When the uncaptured hold expired and was voided by the service (when its processor says it expires, as Stripe’s `capture_before`; else `HOLD_EXPIRY_MS` after the sale, default 7 days); null otherwise'),
    sources: z
      .array(sourceOut)
      .optional()
      .describe(
        "Only on the sale of a transaction paid from its `source`: where its money came from, in the transaction's order. A refund of the sale goes back to the cards first, in that order, then to the wallets (see the docs)",
      ),
    late_for_transaction: z
      .uuid()
      .nullable()
      .describe(
        'A payment the gateway made only after this transaction had been paid, cancelled or expired: recorded as a sale of its own and reversed at the gateway (its refund or void follows in `operations`); null otherwise',
      ),
    ...timestamps,
  })
  .meta({ id: 'Sale', description: 'What a payment or a charge moved, with the history of its operations' });

/** The merchant's optional reason for an action, stored on its operation; `event`: the event that carries it. */
const reasonField = (verb: string, event: string) =>
  z
    .enum(OPERATION_REASONS)
    .optional()
    .describe(`Why you ${verb}: \`duplicate\`, \`fraudulent\`, \`requested_by_customer\` or \`other\`. Stored on the operation and returned in \`operations[].reason\` (and in the \`${event}\` event)`);

const actionBody = z
  .strictObject({
    amount: positiveMoneyAmount('Major units of the sale\'s currency; default: all that the action can move now').optional(),
    reason: reasonField('capture or void', 'sale.captured` or `sale.voided'),
  })
  .meta({ id: 'SaleAction', description: 'A capture or void of a sale\'s held money; no body (or `{}`) moves all that the action can, without a reason' });

const refundBody = z
  .strictObject({
    amount: positiveMoneyAmount('Major units of the sale\'s currency; default: all that is refundable now').optional(),
    reason: reasonField('refund', 'sale.refunded'),
  })
  .meta({ id: 'SaleRefund', description: 'A refund of a sale\'s captured money; no body (or `{}`) refunds all that is refundable, without a reason' });

const listQuery = pageQuery.extend({
  status: z.enum(SALE_STATUSES).optional().describe('Only sales in this state'),
  transaction_id: ref('transaction').optional().describe('Only the sales of this transaction'),
  authorization_id: ref('authorization').optional().describe('Only the charges of this authorization'),
  currency: exact(3).optional().describe('Only sales in this currency'),
});

function conflict(action: SaleAction, sale: StoredSale, requested: number): ApiError {
  const { currency } = sale.row;
  const fmt = (units: number) => `${unitsToDecimalString(units, exponentOf(currency))} ${currency}`;
  const limit = actionLimit(action, sale.row);
  const what = action === 'refund' ? 'refundable' : 'held';
  const asked = requested > 0 ? `${action} of ${fmt(requested)} refused: ` : `nothing to ${action}: `;
  // Money only moves from confirmed states: say so when a call in flight is what stands in the way.
  const awaiting = awaitingConfirmation(action, sale.row);
  const wait =
    awaiting > 0 && Math.max(requested, 1) <= limit + awaiting
      ? `; a capture of ${fmt(awaiting)} is still in flight at the processor, and is refundable once it is confirmed: retry then`
      : '';
  // Disputed money is the bank's until the dispute is won: say that this is what stands in the way.
  const disputed = action === 'refund' && sale.row.disputed > 0 ? `; ${fmt(sale.row.disputed)} of the sale is disputed and cannot be refunded (docs/disputes.md)` : '';
  return new ApiError('conflict', `${asked}${ACTION_RULES[action]} (${what} now: ${fmt(limit)})${disputed}${wait}; nothing was changed`);
}

const action = (name: SaleAction, summary: string, description: string, body: typeof actionBody | typeof refundBody = actionBody) =>
  route({
    method: 'post',
    path: `/sale/{id}/${name}/`,
    operationId: `${name}Sale`,
    summary,
    description,
    example: { request: { amount: 10, reason: name === 'refund' ? 'requested_by_customer' : 'other' }, response: SALE_EXAMPLE },
    tag: 'Sale',
    body,
    response: saleOut,
    status: 200,
    problems: [502],
    accepted: `The outcome is unknown (the gateway did not answer): the sale, \`pending\` until reconciliation proves whether the ${name} was made`,
    movesMoney: true,
    async handler({ env, params, body, deps, db, binding, accepted, baseUrl }) {
      // Its row decides; the whole sale (operations, figures) is read once the action is done.
      const sale = { row: found(await saleRow(db, params.id!, env.id), 'sale') };
      const amount = body.amount === undefined ? 'all' : toMinor(body.amount, sale.row.currency, 'amount');
      const outcome = await moveSaleMoney(deps, { sale: sale.row, action: name, amount, bound: boundStep(binding), merchantReason: body.reason });
      switch (outcome.kind) {
        case 'done':
          return presentSale(outcome.sale, baseUrl);
        case 'pending':
          accepted();
          return presentSale(outcome.sale, baseUrl);
        case 'in_flight':
          throw inFlight(outcome.retryAfterMs);
        case 'conflict':
          // The amounts moved since they were read: explain with the ones in force now.
          throw conflict(name, (await getSale(db, env.id, sale.row.id))!, amount === 'all' ? 0 : amount);
        case 'unsupported':
          throw new ApiError('conflict', `This ${name} cannot be made: ${MISSING_CAPABILITY[outcome.missing]}; nothing was changed`);
        case 'gateway_failed':
          throw new ApiError('gateway_error', `The gateway did not make the ${name}: ${outcome.reason}; nothing was changed`);
        case 'part_of':
          throw new ApiError(
            'conflict',
            `This charge paid part of transaction ${outcome.transaction}: refund it through the transaction's sale, POST /v1/sale/${outcome.sale}/refund/; nothing was changed`,
          );
        case 'partial': {
          // Recorded: what was refunded stays so, and a repeat with the same key replays this answer.
          const fmt = (units: number) => `${unitsToDecimalString(units, exponentOf(sale.row.currency))} ${sale.row.currency}`;
          throw new RecordedError(
            'gateway_error',
            `Refunded ${fmt(outcome.amount - outcome.refused)} of ${fmt(outcome.amount)}: the gateway did not refund ${outcome.reason}; that part is refundable again`,
          );
        }
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
    async handler(ctx) {
      return listPage(ctx, (filters, page) => listSales(ctx.db, ctx.env.id, filters, page), (sale) => presentSale(sale, ctx.baseUrl));
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
    async handler({ env, params, db, baseUrl }) {
      const sale = found(await getSale(db, env.id, params.id!), 'sale');
      return presentSale(sale, baseUrl);
    },
  }),
  action(
    'capture',
    'Capture held funds, all or `amount`',
    'Captures funds held by an authorizing payment: `amount`, or all that is held when the body is empty, with an optional `reason` kept on the capture operation. More than is held is a 409; a gateway failure is a 502 and nothing moves.',
  ),
  action(
    'refund',
    'Refund captured funds, all that is not yet refunded or `amount`',
    'Refunds captured funds: `amount`, or all that is refundable when the body is empty, with an optional `reason` kept on the refund operation. More than is refundable is a 409; destination wallets give their shares back proportionally. ' +
      "The sale of a transaction paid from its `source` is refunded back to its sources, the cards first in the transaction's order, then the wallets; " +
      'a card charge that paid part of such a transaction is refunded only through that sale (409).',
    refundBody,
  ),
  action(
    'void',
    'Release held funds, all or `amount`',
    'Releases funds held and not captured: `amount`, or all that is held when the body is empty, with an optional `reason` kept on the void operation. More than is held is a 409.',
  ),
];
