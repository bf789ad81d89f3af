import { z } from 'zod';
import { BALANCE_TRANSACTION_TYPES } from '../domain/balance';
import { addDays, dayStart, zonedDay } from '../domain/time-zone';
import type { BalanceListFilters, Period } from '../store/balance-overview';
import { pageOf, parseQueryFields } from './query-fields';
import { day } from './transaction-filters';

// The Balance page's filters as its query string carries them (a GET form): the balance
// transactions' type and currency, and the period (days of the shop's time zone, the last
// 30 by default) of
// the list, its fees and the processor's sales. Each is parsed on its own: a nonsense
// value is left out and named, the others still apply.

/** The days shown when none are asked for: the last 30, today included. */
const DEFAULT_DAYS = 30;

const fields = {
  type: z.enum(BALANCE_TRANSACTION_TYPES),
  currency: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/),
  from: day,
  to: day,
};
type Field = keyof typeof fields;
const FIELDS = Object.keys(fields) as Field[];
const pageNo = z.coerce.number().int().min(1).max(100_000);

export interface BalanceFilters {
  type?: z.infer<typeof fields.type>;
  currency?: string;
  /** First and last day of the period in the shop's time zone, always set. */
  from: string;
  to: string;
  page: number;
}

export interface ParsedBalanceFilters {
  filters: BalanceFilters;
  /** Given but not understood: left out. */
  ignored: Field[];
}

export function parseBalanceFilters(query: Record<string, unknown>, now: Date, timeZone: string): ParsedBalanceFilters {
  const { values: given, ignored } = parseQueryFields(query, fields);
  const to = given.to ?? zonedDay(now, timeZone);
  let from = given.from ?? addDays(to, -(DEFAULT_DAYS - 1));
  // A range that ends before it starts: the days before its end, as with no start.
  if (from > to) {
    ignored.push('from');
    from = addDays(to, -(DEFAULT_DAYS - 1));
  }
  return { filters: { type: given.type, currency: given.currency, from, to, page: pageOf(query, pageNo) }, ignored };
}

/** The period as creation times: from the start of `from` to the end of `to`, in the shop's time zone. */
export const periodOf = (f: Pick<BalanceFilters, 'from' | 'to'>, timeZone: string): Period => ({
  from: dayStart(f.from, timeZone).toISOString(),
  to: dayStart(addDays(f.to, 1), timeZone).toISOString(),
});

export const storeFiltersOf = (f: BalanceFilters, timeZone: string): BalanceListFilters => ({ type: f.type, currency: f.currency, ...periodOf(f, timeZone) });

/** The query string of the same filters: for another page of the list, or (`kind`) the export of the same rows. */
export function balanceQuery(f: BalanceFilters, extra: Record<string, string>): string {
  const params = new URLSearchParams(extra);
  for (const name of FIELDS) {
    const value = f[name];
    if (value !== undefined) params.set(name, value);
  }
  return `?${params}`;
}
