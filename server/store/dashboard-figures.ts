import { sql } from 'kysely';
import type { Db } from './db';
import type { DisputeRow, GatewayCallRow, ProcessorAttentionRow, WebhookEndpointRow } from './schema';
import { disputesAwaitingResponse } from './disputes';
import { processorAttentionOf } from './processor-attention';

// The dashboard home's figures: what moved per UTC day and currency over the last 30 days,
// counted by the database (GROUP BY day and currency), never by loading the rows. A day is
// the first ten characters of the ISO 8601 UTC moment every row stores (`YYYY-MM-DD`), so
// both engines cut days at midnight UTC, whatever the server's or the user's time zone.

export const FIGURE_KINDS = ['payments', 'refunds', 'disputes', 'failed'] as const;
export type FigureKind = (typeof FIGURE_KINDS)[number];

/** One kind's count and volume (minor units) on one UTC day in one currency. */
export interface DayFigure {
  kind: FigureKind;
  day: string;
  currency: string;
  count: number;
  amount: number;
}

/** How many days the home shows, today included. */
export const FIGURE_DAYS = 30;
const DAY_MS = 86_400_000;

/** The UTC day `back` days before `now`'s, as `YYYY-MM-DD`. */
export const utcDay = (now: Date, back = 0) => new Date(now.getTime() - back * DAY_MS).toISOString().slice(0, 10);

interface Grouped {
  day: string;
  currency: string;
  count: number | string | bigint;
  amount: number | string | bigint | null;
}

const figure = (kind: FigureKind) => (r: Grouped): DayFigure => ({ kind, day: r.day, currency: r.currency, count: Number(r.count), amount: Number(r.amount ?? 0) });

/**
 * Sale operations of `kinds` per day and currency. A card charge that paid part of a
 * transaction's `source` is left out: the source's own sale counts the whole payment.
 */
function saleOperations(db: Db, environmentId: string, since: string, kinds: ('capture' | 'charge' | 'refund' | 'decline')[]) {
  const day = sql<string>`substr(sale_operations.created_at, 1, 10)`;
  return db
    .selectFrom('sale_operations')
    .innerJoin('sales', 'sales.id', 'sale_operations.sale_id')
    .select((eb) => [day.as('day'), 'sales.currency as currency', eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('sale_operations.amount').as('amount')])
    .where('sales.environment_id', '=', environmentId)
    .where('sales.source_transaction_id', 'is', null)
    .where('sale_operations.kind', 'in', kinds)
    .where('sale_operations.created_at', '>=', since)
    .groupBy([day, 'sales.currency'])
    .execute();
}

/** Payments refused on the payment page (declined, insufficient funds): the transaction's total each. */
function refusedAttempts(db: Db, environmentId: string, since: string) {
  const day = sql<string>`substr(payment_attempts.created_at, 1, 10)`;
  return db
    .selectFrom('payment_attempts')
    .innerJoin('transactions', 'transactions.id', 'payment_attempts.transaction_id')
    .select((eb) => [day.as('day'), 'transactions.currency as currency', eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('transactions.total_price').as('amount')])
    .where('transactions.environment_id', '=', environmentId)
    .where('payment_attempts.outcome', 'in', ['declined', 'insufficient_funds'])
    .where('payment_attempts.created_at', '>=', since)
    .groupBy([day, 'transactions.currency'])
    .execute();
}

function openedDisputes(db: Db, environmentId: string, since: string) {
  const day = sql<string>`substr(created_at, 1, 10)`;
  return db
    .selectFrom('disputes')
    .select((eb) => [day.as('day'), 'currency', eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('amount').as('amount')])
    .where('environment_id', '=', environmentId)
    .where('created_at', '>=', since)
    .groupBy([day, 'currency'])
    .execute();
}

/**
 * Every kind's figures per UTC day and currency, from the start of the day FIGURE_DAYS − 1
 * days before `now`'s: payments are captures and charges (money in), refunds are refund
 * operations, disputes are disputes opened, failed payments are refused payment-page
 * attempts and declined charges of saved cards.
 */
export async function dailyFigures(db: Db, environmentId: string, now: Date): Promise<DayFigure[]> {
  const since = `${utcDay(now, FIGURE_DAYS - 1)}T00:00:00.000Z`;
  const [paid, refunded, disputed, refused, declined] = await Promise.all([
    saleOperations(db, environmentId, since, ['capture', 'charge']),
    saleOperations(db, environmentId, since, ['refund']),
    openedDisputes(db, environmentId, since),
    refusedAttempts(db, environmentId, since),
    saleOperations(db, environmentId, since, ['decline']),
  ]);
  return [
    ...paid.map(figure('payments')),
    ...refunded.map(figure('refunds')),
    ...disputed.map(figure('disputes')),
    ...refused.map(figure('failed')),
    ...declined.map(figure('failed')),
  ];
}

export type AttentionCall = Pick<GatewayCallRow, 'id' | 'kind' | 'amount' | 'currency' | 'created_at' | 'subject_id'>;
export type FailingEndpoint = Pick<WebhookEndpointRow, 'id' | 'url' | 'enabled' | 'disabled_reason'>;

export interface Attention {
  disputes: DisputeRow[];
  calls: AttentionCall[];
  endpoints: FailingEndpoint[];
  /** What a connected processor told us that our books cannot take, newest first (store/processor-attention.ts). */
  processorItems: ProcessorAttentionRow[];
}

/** How far back a delivery that did not go through makes its endpoint "failing". */
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

/** What needs a person: disputes waiting for evidence, gateway calls in `attention`, failing webhook endpoints, processors' items. */
export async function attentionOf(db: Db, environmentId: string, now: Date, limit = 20): Promise<Attention> {
  const [disputes, calls, endpoints, processorItems] = await Promise.all([
    disputesAwaitingResponse(db, environmentId, limit),
    db
      .selectFrom('gateway_calls')
      .select(['id', 'kind', 'amount', 'currency', 'created_at', 'subject_id'])
      .where('environment_id', '=', environmentId)
      .where('state', '=', 'attention')
      .orderBy('created_at')
      .limit(limit)
      .execute(),
    failingEndpoints(db, environmentId, now, limit),
    processorAttentionOf(db, environmentId, limit),
  ]);
  return { disputes, calls, endpoints, processorItems };
}
