import { z } from 'zod';
import { BALANCE_TRANSACTION_TYPES } from '../domain/balance';
import type { BalanceListFilters, Period } from '../store/balance-overview';
import { day } from './transaction-filters';

// The Balance page's filters as its query string carries them (a GET form): the balance
// transactions' type and currency, and the period (UTC days, the last 30 by default) of
// the list, its fees and the processor's sales. Each is parsed on its own: a nonsense
// value is left out and named, the others still apply.

const DAY_MS = 86_400_000;
/** The days shown when none are asked for: the last 30, today included. */
export const DEFAULT_DAYS = 30;

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
  /** First and last UTC day of the period, always set. */
  from: string;
  to: string;
  page: number;
}

export interface ParsedBalanceFilters {
  filters: BalanceFilters;
  /** Given but not understood: left out. */
  ignored: Field[];
}

const single = (v: unknown) => (Array.isArray(v) ? v[0] : v);
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function parseBalanceFilters(query: Record<string, unknown>, now: Date): ParsedBalanceFilters {
  const given: Partial<Record<Field, string>> = {};
  const ignored: Field[] = [];
  for (const name of FIELDS) {
    const raw = single(query[name]);
    // An empty field is a filter not used (the form sends every field).
    if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) continue;
    const parsed = fields[name].safeParse(raw);
    if (parsed.success) given[name] = parsed.data;
    else ignored.push(name);
  }
  const to = given.to ?? isoDay(now.getTime());
  let from = given.from ?? isoDay(Date.parse(`${to}T00:00:00.000Z`) - (DEFAULT_DAYS - 1) * DAY_MS);
  // A range that ends before it starts: the days before its end, as with no start.
  if (from > to) {
    ignored.push('from');
    from = isoDay(Date.parse(`${to}T00:00:00.000Z`) - (DEFAULT_DAYS - 1) * DAY_MS);
  }
  const page = pageNo.catch(1).parse(single(query.page) ?? 1);
  return { filters: { type: given.type as BalanceFilters['type'], currency: given.currency, from, to, page }, ignored };
}

/** The period as creation times: from the start of `from` to the end of `to`. */
export const periodOf = (f: Pick<BalanceFilters, 'from' | 'to'>): Period => ({
  from: `${f.from}T00:00:00.000Z`,
  to: new Date(Date.parse(`${f.to}T00:00:00.000Z`) + DAY_MS).toISOString(),
});

export const storeFiltersOf = (f: BalanceFilters): BalanceListFilters => ({ type: f.type, currency: f.currency, ...periodOf(f) });

/** The query string of the same filters: for another page of the list, or (`kind`) the export of the same rows. */
export function balanceQuery(f: BalanceFilters, extra: Record<string, string>): string {
  const params = new URLSearchParams(extra);
  for (const name of FIELDS) {
    const value = f[name];
    if (value !== undefined) params.set(name, value);
  }
  return `?${params}`;
}
