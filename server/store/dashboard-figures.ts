import { sql } from 'kysely';
import type { Db } from './db';
import type { DisputeRow, GatewayCallRow, MerchantPayoutRow, ProcessorAttentionRow, WebhookEndpointRow } from './schema';
import { disputesAwaitingResponse } from './disputes';
import { processorAttentionOf } from './processor-attention';

// The dashboard home's figures: what moved per quarter of an hour and currency since a
// moment, counted by the database (GROUP BY quarter and currency), never by loading the
// rows. A quarter is cut from the ISO 8601 UTC moment every row stores (`YYYY-MM-DDTHH:` and
// 00, 15, 30 or 45), the same on both engines; every time zone's midnight falls on one (their
// offsets are whole quarters of an hour), so the caller folds quarters into the shop's days
// (dashboard/home-figures.ts) without a time zone database in SQL.

export const FIGURE_KINDS = ['payments', 'net', 'refunds', 'disputes', 'failed'] as const;
export type FigureKind = (typeof FIGURE_KINDS)[number];

/** One kind's count and volume (minor units) in one quarter of an hour in one currency. */
export interface QuarterFigure {
  kind: FigureKind;
  /** The quarter's first moment in UTC, `YYYY-MM-DDTHH:MM`. */
  quarter: string;
  currency: string;
  count: number;
  amount: number;
}

const DAY_MS = 86_400_000;

interface Grouped {
  quarter: string;
  currency: string;
  count: number | string | bigint;
  amount: number | string | bigint | null;
}

const figure = (kind: FigureKind) => (r: Grouped): QuarterFigure => ({ kind, quarter: r.quarter, currency: r.currency, count: Number(r.count), amount: Number(r.amount ?? 0) });

/** The quarter of an hour a stored moment falls in: `YYYY-MM-DDTHH:` and its minutes floored to 00/15/30/45. */
const quarterOf = (column: string) => sql<string>`substr(${sql.ref(column)}, 1, 14) || substr('00153045', (cast(substr(${sql.ref(column)}, 15, 2) as integer) / 15) * 2 + 1, 2)`;

/**
 * Sale operations of `kinds` per day and currency. A card charge that paid part of a
 * transaction's `source` is left out: the source's own sale counts the whole payment.
 */
function saleOperations(db: Db, environmentId: string, since: string, kinds: ('capture' | 'charge' | 'refund' | 'decline')[]) {
  const quarter = quarterOf('sale_operations.created_at');
  return db
    .selectFrom('sale_operations')
    .innerJoin('sales', 'sales.id', 'sale_operations.sale_id')
    .select((eb) => [quarter.as('quarter'), 'sales.currency as currency', eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('sale_operations.amount').as('amount')])
    .where('sales.environment_id', '=', environmentId)
    .where('sales.source_transaction_id', 'is', null)
    .where('sale_operations.kind', 'in', kinds)
    .where('sale_operations.created_at', '>=', since)
    .groupBy([quarter, 'sales.currency'])
    .execute();
}

/** Payments refused on the payment page (declined, insufficient funds): the transaction's total each. */
function refusedAttempts(db: Db, environmentId: string, since: string) {
  const quarter = quarterOf('payment_attempts.created_at');
  return db
    .selectFrom('payment_attempts')
    .innerJoin('transactions', 'transactions.id', 'payment_attempts.transaction_id')
    .select((eb) => [quarter.as('quarter'), 'transactions.currency as currency', eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('transactions.total_price').as('amount')])
    .where('transactions.environment_id', '=', environmentId)
    .where('payment_attempts.outcome', 'in', ['declined', 'insufficient_funds'])
    .where('payment_attempts.created_at', '>=', since)
    .groupBy([quarter, 'transactions.currency'])
    .execute();
}

function openedDisputes(db: Db, environmentId: string, since: string) {
  const quarter = quarterOf('created_at');
  return db
    .selectFrom('disputes')
    .select((eb) => [quarter.as('quarter'), 'currency', eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('amount').as('amount')])
    .where('environment_id', '=', environmentId)
    .where('created_at', '>=', since)
    .groupBy([quarter, 'currency'])
    .execute();
}

/**
 * What the merchant keeps: the `net` of the balance transactions of sales (charges,
 * refunds, disputes and their reversals; payouts left out), each at its operation's or its
 * dispute's moment. The fee rule was applied once, as each was written (payments/balance.ts,
 * store/disputes.ts): summed here, never computed again. A sale the merchant's own processor
 * settles has none (it is not in our balance). Read through `balance_transactions_env_created`
 * (migration 137), which holds every column.
 */
function balanceNet(db: Db, environmentId: string, since: string) {
  const quarter = quarterOf('created_at');
  return db
    .selectFrom('balance_transactions')
    .select((eb) => [quarter.as('quarter'), 'currency', eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('net').as('amount')])
    .where('environment_id', '=', environmentId)
    .where('created_at', '>=', since)
    .where('type', 'in', ['charge', 'refund', 'dispute', 'dispute_reversal'])
    .groupBy([quarter, 'currency'])
    .execute();
}

/**
 * Every kind's figures per quarter of an hour and currency since `since`: payments are
 * captures and charges (money in), net is what the balance kept of them after fees, refunds
 * and disputes, refunds are refund operations, disputes are disputes opened, failed payments are refused payment-page attempts and declined charges of saved cards.
 */
export async function quarterFigures(db: Db, environmentId: string, since: Date): Promise<QuarterFigure[]> {
  const from = since.toISOString();
  const [paid, net, refunded, disputed, refused, declined] = await Promise.all([
    saleOperations(db, environmentId, from, ['capture', 'charge']),
    balanceNet(db, environmentId, from),
    saleOperations(db, environmentId, from, ['refund']),
    openedDisputes(db, environmentId, from),
    refusedAttempts(db, environmentId, from),
    saleOperations(db, environmentId, from, ['decline']),
  ]);
  return [
    ...paid.map(figure('payments')),
    ...net.map(figure('net')),
    ...refunded.map(figure('refunds')),
    ...disputed.map(figure('disputes')),
    ...refused.map(figure('failed')),
    ...declined.map(figure('failed')),
  ];
}

export type AttentionCall = Pick<GatewayCallRow, 'id' | 'kind' | 'amount' | 'currency' | 'created_at' | 'subject_id'>;
export type FailingEndpoint = Pick<WebhookEndpointRow, 'id' | 'url' | 'enabled' | 'disabled_reason'>;
export type FailedPayout = Pick<MerchantPayoutRow, 'id' | 'amount' | 'currency' | 'status' | 'failure' | 'iban' | 'updated_at'>;

export interface Attention {
  disputes: DisputeRow[];
  calls: AttentionCall[];
  /** Payouts to the merchant's bank that failed or came back in the last 7 days, newest first. */
  payouts: FailedPayout[];
  endpoints: FailingEndpoint[];
  /** What a connected processor told us that our books cannot take, newest first (store/processor-attention.ts). */
  processorItems: ProcessorAttentionRow[];
}

/** How far back a delivery that did not go through makes its endpoint "failing", and a payout that failed is still news. */
const FAILING_WINDOW_MS = 7 * DAY_MS;

/**
 * Webhook endpoints disabled for failing, or with a delivery of the last 7 days that did
 * not go through (failed for good, or waiting for a retry after a failed attempt).
 */
function failingEndpoints(db: Db, environmentId: string, now: Date, limit: number): Promise<FailingEndpoint[]> {
  const since = new Date(now.getTime() - FAILING_WINDOW_MS).toISOString();
  return db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'enabled', 'disabled_reason'])
    .where('environment_id', '=', environmentId)
    .where((eb) =>
      eb.or([
        eb('disabled_reason', '=', 'failing'),
        eb.exists(
          eb
            .selectFrom('event_deliveries')
            .select('event_deliveries.id')
            .whereRef('event_deliveries.endpoint_id', '=', 'webhook_endpoints.id')
            .where('event_deliveries.created_at', '>=', since)
            .where((d) => d.or([d('delivery_status', '=', 'failed'), d.and([d('delivery_status', '=', 'pending'), d('attempt_count', '>', 0)])])),
        ),
      ]),
    )
    .orderBy('url')
    .limit(limit)
    .execute();
}

/**
 * Payouts the bank refused (`failed`) or sent back (`returned`) in the last 7 days: their
 * money is back in the balance, and the next payout goes to the same account unless the
 * merchant corrects it. Older ones are the payouts list's business: nothing marks one seen.
 */
function failedPayouts(db: Db, environmentId: string, now: Date, limit: number): Promise<FailedPayout[]> {
  return db
    .selectFrom('merchant_payouts')
    .select(['id', 'amount', 'currency', 'status', 'failure', 'iban', 'updated_at'])
    .where('environment_id', '=', environmentId)
    .where('status', 'in', ['failed', 'returned'])
    .where('updated_at', '>=', new Date(now.getTime() - FAILING_WINDOW_MS).toISOString())
    .orderBy('updated_at', 'desc')
    .limit(limit)
    .execute();
}

/** What needs a person: disputes waiting for evidence, gateway calls in `attention`, failed payouts, failing webhook endpoints, processors' items. */
export async function attentionOf(db: Db, environmentId: string, now: Date, limit = 20): Promise<Attention> {
  const [disputes, calls, payouts, endpoints, processorItems] = await Promise.all([
    disputesAwaitingResponse(db, environmentId, limit),
    db
      .selectFrom('gateway_calls')
      .select(['id', 'kind', 'amount', 'currency', 'created_at', 'subject_id'])
      .where('environment_id', '=', environmentId)
      .where('state', '=', 'attention')
      .orderBy('created_at')
      .limit(limit)
      .execute(),
    failedPayouts(db, environmentId, now, limit),
    failingEndpoints(db, environmentId, now, limit),
    processorAttentionOf(db, environmentId, limit),
  ]);
  return { disputes, calls, payouts, endpoints, processorItems };
}
