import { sql } from 'kysely';
import { zonedDay } from '../domain/time-zone';
import type { Db } from './db';
import { countAndPage, type Page } from './paging';
import type { BalanceTransactionRow, MerchantPayoutRow } from './schema';

// What the dashboard's Balance page reads beyond GET /v1/balance/: the fees of a period, the
// pending money by the day it becomes available, the payouts on their way with the date
// their payout file asks the bank for, the balance transactions of a period, and the sales
// a processor settles (never in the balance). Sums are integer minor units, read as
// PostgreSQL's text or SQLite's number.

/** A range of creation times: at or after `from`, before `to` (ISO times). */
export interface Period {
  from: string;
  to: string;
}

export interface BalanceListFilters extends Partial<Period> {
  type?: BalanceTransactionRow['type'];
  currency?: string;
}

/** The balance transactions that match, newest first, one page. */
export function listBalanceTransactionsIn(db: Db, environmentId: string, f: BalanceListFilters, page: Page) {
  let query = db.selectFrom('balance_transactions').where('environment_id', '=', environmentId);
  if (f.type) query = query.where('type', '=', f.type);
  if (f.currency) query = query.where('currency', '=', f.currency);
  if (f.from) query = query.where('created_at', '>=', f.from);
  if (f.to) query = query.where('created_at', '<', f.to);
  return countAndPage<BalanceTransactionRow>(query, page);
}

/** Per currency: the fees taken in the period and how many balance transactions took one. */
export async function feesIn(db: Db, environmentId: string, p: Period): Promise<{ currency: string; fee: number; count: number }[]> {
  const rows = await db
    .selectFrom('balance_transactions')
    .select((eb) => ['currency', eb.fn.sum<number | string>('fee').as('fee'), eb.fn.countAll<number | string>().as('count')])
    .where('environment_id', '=', environmentId)
    .where('created_at', '>=', p.from)
    .where('created_at', '<', p.to)
    .where('fee', '>', 0)
    .groupBy('currency')
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({ currency: r.currency, fee: Number(r.fee), count: Number(r.count) }));
}

/**
 * Per currency and day of the shop's `timeZone`: the pending money that becomes available
 * that day, soonest first. The database sums per UTC minute (every zone's offset is whole
 * minutes, so a minute falls on one day of any zone); the zone's days are folded here.
 */
export async function pendingByDay(db: Db, environmentId: string, now: Date, timeZone: string): Promise<{ currency: string; day: string; net: number }[]> {
  const minute = sql<string>`substr(available_on, 1, 16)`;
  const rows = await db
    .selectFrom('balance_transactions')
    .select((eb) => ['currency', minute.as('minute'), eb.fn.sum<number | string>('net').as('net')])
    .where('environment_id', '=', environmentId)
    .where('available_on', '>', now.toISOString())
    .groupBy(['currency', minute])
    .execute();
  const byDay = new Map<string, { currency: string; day: string; net: number }>();
  for (const r of rows) {
    const day = zonedDay(new Date(`${r.minute}:00.000Z`), timeZone);
    const key = `${day} ${r.currency}`;
    const sum = byDay.get(key) ?? { currency: r.currency, day, net: 0 };
    sum.net += Number(r.net);
    byDay.set(key, sum);
  }
  return [...byDay.keys()].sort().map((k) => byDay.get(k)!);
}

/** A payout on its way, with the payout file it is in (not cancelled) and the execution date that file asks for. */
export type PayoutOnItsWay = MerchantPayoutRow & { file_id: string | null; execution_date: string | null };

/** The payouts pending or in transit, oldest first (the first to arrive). */
export async function payoutsOnTheirWay(db: Db, environmentId: string, limit: number): Promise<PayoutOnItsWay[]> {
  return db
    .selectFrom('merchant_payouts as p')
    .leftJoin('payout_file_items as i', (j) => j.onRef('i.payout_id', '=', 'p.id').on('i.kind', '=', 'merchant_payout').on('i.active', '=', 1))
    .leftJoin('payout_files as f', 'f.id', 'i.file_id')
    .selectAll('p')
    .select(['f.id as file_id', 'f.execution_date'])
    .where('p.environment_id', '=', environmentId)
    .where('p.status', 'in', ['pending', 'in_transit'])
    .orderBy('p.id')
    .limit(limit)
    .execute();
}

/** Per gateway and currency: the sales of `gatewayIds` created in the period that took money, what they took and gave back. */
export async function processorSalesIn(
  db: Db,
  environmentId: string,
  gatewayIds: readonly string[],
  p: Period,
): Promise<{ gateway_id: string; currency: string; count: number; captured: number; refunded: number }[]> {
  if (!gatewayIds.length) return [];
  const rows = await db
    .selectFrom('sales')
    .select((eb) => [
      'gateway_id',
      'currency',
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.sum<number | string>('captured').as('captured'),
      eb.fn.sum<number | string>('refunded').as('refunded'),
    ])
    .where('environment_id', '=', environmentId)
    .where('gateway_id', 'in', gatewayIds)
    .where('captured', '>', 0)
    .where('created_at', '>=', p.from)
    .where('created_at', '<', p.to)
    .groupBy(['gateway_id', 'currency'])
    .orderBy('gateway_id')
    .orderBy('currency')
    .execute();
  return rows.map((r) => ({ gateway_id: r.gateway_id, currency: r.currency, count: Number(r.count), captured: Number(r.captured), refunded: Number(r.refunded) }));
}

/**
 * What those processors reported of the same sales (their balance transactions, migration
 * 107), per gateway and the currency each settled in: the processor's amount, fee and net
 * of the sales whose figures have been read. Not ours: nothing here enters the balance.
 */
export async function processorFiguresIn(
  db: Db,
  environmentId: string,
  gatewayIds: readonly string[],
  p: Period,
): Promise<{ gateway_id: string; currency: string; count: number; amount: number; fee: number; net: number }[]> {
  if (!gatewayIds.length) return [];
  const rows = await db
    .selectFrom('sales')
    .innerJoin('sale_processor_settlements as f', 'f.sale_id', 'sales.id')
    .select((eb) => [
      'sales.gateway_id',
      'f.currency',
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.sum<number | string>('f.amount').as('amount'),
      eb.fn.sum<number | string>('f.fee').as('fee'),
      eb.fn.sum<number | string>('f.net').as('net'),
    ])
    .where('sales.environment_id', '=', environmentId)
    .where('sales.gateway_id', 'in', gatewayIds)
    .where('sales.created_at', '>=', p.from)
    .where('sales.created_at', '<', p.to)
    .groupBy(['sales.gateway_id', 'f.currency'])
    .orderBy('sales.gateway_id')
    .orderBy('f.currency')
    .execute();
  return rows.map((r) => ({ gateway_id: r.gateway_id, currency: r.currency, count: Number(r.count), amount: Number(r.amount), fee: Number(r.fee), net: Number(r.net) }));
}
