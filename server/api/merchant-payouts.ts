import { z } from 'zod';
import { PAYOUT_STATES } from '../domain/sepa/states';
import { listPage, pageEnvelope, pageEnvelopeSchema, pageQuery } from '../http/pagination';
import { ApiError, found } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { presentBalanceTransaction } from '../present/balance';
import { presentMerchantPayout } from '../present/merchant-payout';
import type { Deps } from '../deps';
import { type ManualPayoutRefusal, requestManualPayout } from '../payments/manual-payout';
import { getMerchantPayout, listMerchantPayouts, payoutLines } from '../store/merchant-payouts';
import { balanceTransactionOut } from './balance';
import { refuseWithoutHolder, refuseWithoutPayouts } from './live-payouts';
import { currencyCode, currencyOut, dateTime, exact, livemode, objectId } from '../schemas/fields';
import { EXAMPLE_TIME, page } from './examples';

// Payouts of your balance to your bank account (docs/balance.md#payouts): made by the
// schedule of /payout_settings/, or on request when it is `manual`; each contains the
// balance transactions it paid out (its lines), which the settlement report lists too.

const MERCHANT_PAYOUT_ID = '01943a70-1c2d-7e3f-8a40-5b6c7d8e9fa0';

export const merchantPayoutOut = z
  .object({
    id: objectId,
    livemode,
    status: z
      .enum(PAYOUT_STATES)
      .describe(
        '`pending`: made, not sent yet; `in_transit`: in a payout file sent to the bank (SEPA file payouts only); `paid`: the payout provider paid it, or a bank statement shows it; `returned`: paid, then sent back by your bank, its money back in your balance; `failed`: refused, its money back in your balance',
      ),
    currency: currencyOut,
    amount: z.number().describe('Major units, > 0: the sum of its lines\' `net`'),
    schedule: z.enum(['daily', 'weekly', 'manual']).describe('What made it: the daily or weekly schedule, or a request (`manual`)'),
    period: z.string().nullable().describe('The day (`2026-11-27`) or ISO week (`2026-W48`, UTC) it pays out; null for a manual payout'),
    iban_last4: z.string().describe('The last four characters of the IBAN it goes to'),
    line_count: z.number().int().describe('How many balance transactions it paid out (its lines)'),
    failure: z.string().nullable().describe('Why it failed or came back; while pending, why no payout file could take it yet; null otherwise'),
    created: dateTime.describe('When it was made (its money left the balance)'),
    updated: dateTime.describe('When its status last changed'),
  })
  .meta({ id: 'MerchantPayout', description: 'A payout of your balance in one currency to your bank account' });

const merchantPayoutDetail = merchantPayoutOut
  .extend({ lines: pageEnvelopeSchema(balanceTransactionOut).describe('Its lines, one page (`page`, `page_size`), newest first; a failed payout has none (they went back to the balance)') })
  .meta({ id: 'MerchantPayoutWithLines', description: 'A payout with one page of the balance transactions it paid out' });

const PAYOUT_EXAMPLE = {
  id: MERCHANT_PAYOUT_ID,
  livemode: false,
  status: 'paid' as const,
  currency: 'EUR',
  amount: 32.72,
  schedule: 'daily' as const,
  period: '2026-01-17',
  iban_last4: '1332',
  line_count: 1,
  failure: null,
  created: '2026-01-17T10:30:01.000Z',
  updated: '2026-01-17T10:30:02.000Z',
};

const LINE_EXAMPLE = {
  id: '01943a70-0b1c-7d2e-8f30-4a5b6c7d8e9f',
  livemode: false,
  type: 'charge' as const,
  source: { object: 'sale' as const, id: '01943a6e-7d3e-7e5c-a14a-3c4d5e6f7a8b' },
  currency: 'EUR',
  amount: 33.95,
  fee: 1.23,
  net: 32.72,
  status: 'available' as const,
  available_on: '2026-01-17T10:30:00.000Z',
  created: EXAMPLE_TIME,
};


/** A refused manual payout as the 409 it has always been. */
function refuse(deps: Pick<Deps, 'payouts'>, live: boolean, currency: string, r: ManualPayoutRefusal): never {
  switch (r.reason) {
    case 'scheduled':
      throw new ApiError('conflict', `Your payouts follow the ${r.schedule} schedule: set it to manual in /payout_settings/ to request them`);
    case 'no_iban':
      throw new ApiError('conflict', 'No bank account: set an IBAN in /payout_settings/ first');
    case 'held':
      throw new ApiError('conflict', `A new bank account holds the payouts until an owner confirms it from the email sent to the owners, or until ${r.until}`);
    case 'no_provider':
      refuseWithoutPayouts(deps, live);
      break;
    case 'no_holder':
      refuseWithoutHolder(deps, live, null, '/payout_settings/');
      break;
    case 'nothing_available': {
      const known = r.available.length ? ` (available in ${r.available.join(', ')})` : '';
      throw new ApiError('conflict', `Nothing available to pay out in ${currency}${known}`, [{ path: 'currency', message: 'nothing available to pay out' }]);
    }
  }
  throw new Error(`manual payout refused: ${r.reason}`);
}

function listRoute() {
  return route({
    method: 'get',
    path: '/merchant_payout/',
    operationId: 'listMerchantPayouts',
    description: 'Payouts of your balance to your bank account, newest first.',
    example: { response: page([PAYOUT_EXAMPLE]) },
    summary: 'List payouts to your bank account',
    tag: 'Balance',
    query: pageQuery.extend({
      status: z.enum(PAYOUT_STATES).optional().describe('Only payouts in this status'),
      currency: exact(3).optional().describe('Only payouts in this currency'),
    }),
    response: pageEnvelopeSchema(merchantPayoutOut),
    status: 200,
    handler: (ctx) => listPage(ctx, (f, p) => listMerchantPayouts(ctx.db, ctx.env.id, f, p), presentMerchantPayout),
  });
}

function getRoute() {
  return route({
    method: 'get',
    path: '/merchant_payout/{id}/',
    operationId: 'getMerchantPayout',
    description: 'One payout, with one page of its lines: the balance transactions it paid out. Their `net` adds up to its `amount`.',
    example: { response: { ...PAYOUT_EXAMPLE, lines: page([LINE_EXAMPLE]) } },
    summary: 'Get a payout to your bank account and its lines',
    tag: 'Balance',
    query: pageQuery,
    response: merchantPayoutDetail,
    status: 200,
    async handler({ env, params, query, req, baseUrl, deps, db }) {
      const row = found(await getMerchantPayout(db, env.id, params.id!), 'merchant payout');
      const { count, rows } = await payoutLines(db, row.id, query);
      const now = deps.now();
      return { ...presentMerchantPayout(row), lines: pageEnvelope(req, baseUrl, query, count, rows.map((r) => presentBalanceTransaction(r, now))) };
    },
  });
}

function createRoute() {
  return route({
    method: 'post',
    path: '/merchant_payout/',
    operationId: 'createMerchantPayout',
    description:
      'Pays out what is available in `currency` now (the balance transactions available and not yet paid out) to the IBAN of /payout_settings/. Only with the `manual` schedule (409 otherwise, or with no IBAN set); 409 when nothing positive is available. The payout is `pending` until the payout provider answers.',
    example: { request: { currency: 'EUR' }, response: { ...PAYOUT_EXAMPLE, status: 'pending', schedule: 'manual', period: null } },
    summary: 'Pay out your available balance (manual schedule)',
    tag: 'Balance',
    body: z.strictObject({ currency: currencyCode.describe('The currency to pay out') }).meta({ id: 'MerchantPayoutInput', description: 'A manual payout' }),
    response: merchantPayoutOut,
    status: 201,
    async handler({ env, body, deps, db }) {
      const live = env.mode === 'live';
      const outcome = await requestManualPayout(db, deps, { environmentId: env.id, live, currency: body.currency });
      if (!outcome.ok) refuse(deps, live, body.currency, outcome);
      return presentMerchantPayout(outcome.payout);
    },
  });
}

export const merchantPayoutRoutes = (): RouteDef[] => [listRoute(), createRoute(), getRoute()];

