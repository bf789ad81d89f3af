import { z } from 'zod';
import { BALANCE_TRANSACTION_TYPES } from '../domain/balance';
import { listPage, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { found } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { presentBalance, presentBalanceTransaction } from '../present/balance';
import { balanceOf, getBalanceTransaction, listBalanceTransactions } from '../store/balance';
import { currencyOut, dateTime, exact, livemode, objectId, ref } from '../schemas/fields';
import { IDS, page } from './examples';

// The merchant's balance and its balance transactions, read-only: they follow the sales
// (server/payments/balance.ts, docs/balance.md).

const BALANCE_TYPES = BALANCE_TRANSACTION_TYPES;

const BALANCE_TRANSACTION_ID = '01943a70-0b1c-7d2e-8f30-4a5b6c7d8e9f';
const EXAMPLE_TIME = '2026-01-15T10:30:00.000Z';

const currencyAmount = z
  .object({ currency: currencyOut, amount: z.number().describe('Major units of `currency`; negative when more went out than came in') })
  .meta({ id: 'BalanceAmount', description: 'An amount in one currency' });

const balanceOut = z
  .object({
    livemode,
    available: z.array(currencyAmount).describe('Per currency: what has settled (its `available_on` has passed)'),
    pending: z.array(currencyAmount).describe('Per currency: what is still in its settlement delay'),
  })
  .meta({ id: 'Balance', description: "The merchant's own money, per currency: available and pending" });

export const balanceTransactionOut = z
  .object({
    id: objectId,
    livemode,
    type: z
      .enum(BALANCE_TYPES)
      .describe(
        '`charge`: a capture or charge of a sale (money in); `refund`: a refund of it (money out); `dispute`: a dispute took the disputed amount and the dispute fee (money out); `dispute_reversal`: a won dispute gave the amount back (money in); `payout`: a payout to your bank account (money out); `payout_failure`: a failed payout\'s money back',
      ),
    source: z
      .object({ object: z.enum(['sale', 'dispute', 'merchant_payout']).describe('What kind of object made it'), id: z.uuid().describe('Its `id`') })
      .describe('The object whose money moved'),
    currency: currencyOut,
    amount: z.number().describe("The merchant's part of the money moved, major units: positive in, negative out (a destination's share is not the merchant's)"),
    fee: z.number().describe("The platform's fee on it, major units, ≥ 0"),
    net: z.number().describe('`amount` − `fee`: what the balance moved by'),
    status: z.enum(['pending', 'available']).describe('`available` once `available_on` has passed'),
    available_on: dateTime.describe('When it is available (money in waits for the settlement delay; money out is at once)'),
    created: dateTime.describe('When the money moved (the sale operation, or the dispute opening or being won)'),
  })
  .meta({ id: 'BalanceTransaction', description: "One movement of the merchant's balance, with its fee" });

const BALANCE_TRANSACTION_EXAMPLE = {
  id: BALANCE_TRANSACTION_ID,
  type: 'charge' as const,
  source: { object: 'sale' as const, id: IDS.sale },
  currency: 'EUR',
  amount: 33.95,
  fee: 1.23,
  net: 32.72,
  status: 'pending' as const,
  available_on: '2026-01-17T10:30:00.000Z',
  created: EXAMPLE_TIME,
};

const balanceTransactionQuery = pageQuery.extend({
  type: z.enum(BALANCE_TYPES).optional().describe('Only balance transactions of this type'),
  sale: ref('sale').optional().describe('Only the balance transactions of this sale'),
  currency: exact(3).optional().describe('Only balance transactions in this currency'),
});

export const balanceRoutes = (): RouteDef[] => [
  route({
    method: 'get',
    path: '/balance/',
    operationId: 'getBalance',
    description: "Your environment's own money per currency: `available` (settled) and `pending` (in its settlement delay). Money sent to wallets through `destination` is not in it.",
    example: { response: { available: [{ currency: 'EUR', amount: 120.4 }], pending: [{ currency: 'EUR', amount: 32.72 }] } },
    summary: 'Get the available and pending balance per currency',
    tag: 'Balance',
    response: balanceOut,
    status: 200,
    async handler({ env, deps, db }) {
      return presentBalance(await balanceOf(db, env.id, deps.now()));
    },
  }),
  route({
    method: 'get',
    path: '/balance_transaction/',
    operationId: 'listBalanceTransactions',
    description: 'The movements of your balance, newest first: each capture or charge (money in), refund (money out) and dispute (its debit, and its reversal when won), with its fee.',
    example: { response: page([BALANCE_TRANSACTION_EXAMPLE]) },
    summary: 'List balance transactions, newest first',
    tag: 'Balance',
    query: balanceTransactionQuery,
    response: pageEnvelopeSchema(balanceTransactionOut),
    status: 200,
    async handler(ctx) {
      const now = ctx.deps.now();
      return listPage(
        ctx,
        ({ sale, ...filters }, page) => listBalanceTransactions(ctx.db, ctx.env.id, { ...filters, sale_id: sale }, page),
        (r) => presentBalanceTransaction(r, now),
      );
    },
  }),
  route({
    method: 'get',
    path: '/balance_transaction/{id}/',
    operationId: 'getBalanceTransaction',
    description: 'One movement of your balance, with its fee.',
    example: { response: BALANCE_TRANSACTION_EXAMPLE },
    summary: 'Get a balance transaction',
    tag: 'Balance',
    response: balanceTransactionOut,
    status: 200,
    async handler({ env, params, deps, db }) {
      const row = found(await getBalanceTransaction(db, env.id, params.id!), 'balance transaction');
      return presentBalanceTransaction(row, deps.now());
    },
  }),
];
