import { z } from 'zod';
import { CARD_BRANDS } from '../../widget/fields/card';
import { PAYMENT_STATUSES, paymentStatusWhere } from '../domain/payment-status';
import { addDays, dayStart, isCalendarDay } from '../domain/time-zone';
import { amountBound, amountsBackwards, MAX_SEARCH_LENGTH, searchTerms } from '../domain/transaction-search';
import type { TransactionFilters } from '../store/transactions';
import { pageOf, parseQueryFields } from './query-fields';

// The transactions list's filters as the query string carries them: each parsed on its own,
// so one nonsense value is dropped (and named to the user) while the others still apply.

/** A calendar date as `<input type="date">` sends it: a whole day of the shop's time zone where it is used (domain/time-zone.ts). */
export const day = z.string().trim().refine(isCalendarDay);

/** A text a person typed: no control characters (PostgreSQL refuses NUL in a text). */
export const typed = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]*$/u);

/** An amount as a person types it, in the payment's own currency ("12.50", "12,5", "1200"). */
const amount = z
  .string()
  .trim()
  .refine((a) => amountBound(a, 'min') !== undefined);

const fields = {
  /** The status in words (domain/payment-status.ts). */
  status: z.enum(PAYMENT_STATUSES),
  currency: z.string().trim().toUpperCase().regex(/^[A-Z]{3}$/),
  order_id: typed(200),
  from: day,
  to: day,
  min: amount,
  max: amount,
  brand: z.enum(CARD_BRANDS),
  card: z.string().trim().regex(/^\d{4}$/),
  q: typed(MAX_SEARCH_LENGTH),
  /** The checkbox that shows the demo shop's and `npm run trigger`'s payments, hidden otherwise. */
  all: z.literal('1'),
};
type Field = keyof typeof fields;
const FIELDS = Object.keys(fields) as Field[];
const pageNo = z.coerce.number().int().min(1).max(100_000);

export type TxFilters = { [K in Field]?: z.infer<(typeof fields)[K]> } & { page: number };

export interface ParsedFilters {
  filters: TxFilters;
  /** Filters given but not understood, left out of the search. */
  ignored: Field[];
  /** The ranges that end before they start: left out. */
  backwards: ('dates' | 'amounts')[];
}

export function parseTxFilters(query: Record<string, unknown>): ParsedFilters {
  const { values, ignored } = parseQueryFields(query, fields);
  const filters: TxFilters = { ...values, page: pageOf(query, pageNo) };
  const backwards: ParsedFilters['backwards'] = [];
  if (filters.from && filters.to && filters.from > filters.to) {
    backwards.push('dates');
    delete filters.from;
    delete filters.to;
  }
  if (filters.min && filters.max && amountsBackwards(filters.min, filters.max)) {
    backwards.push('amounts');
    delete filters.min;
    delete filters.max;
  }
  return { filters, ignored, backwards };
}

/** The store's filters: days of the shop's time zone, `to` with its whole day. */
export function storeFilters(f: TxFilters, now: string, timeZone: string): TransactionFilters {
  return {
    payment_status: f.status && paymentStatusWhere(f.status),
    amount_min: f.min === undefined ? undefined : amountBound(f.min, 'min'),
    amount_max: f.max === undefined ? undefined : amountBound(f.max, 'max'),
    card_last4: f.card,
    card_brand: f.brand,
    currency: f.currency,
    order_id: f.order_id,
    created_from: f.from && dayStart(f.from, timeZone).toISOString(),
    created_before: f.to && dayStart(addDays(f.to, 1), timeZone).toISOString(),
    search: f.q === undefined ? undefined : searchTerms(f.q, timeZone),
    hide_tools: f.all === undefined,
    now,
  };
}

/** The filters alone, as a query string without `?` and without the page: what a saved view keeps. */
export function filtersParams(f: TxFilters): string {
  const params = new URLSearchParams();
  for (const name of FIELDS) {
    const value = f[name];
    if (value !== undefined) params.set(name, value);
  }
  return params.toString();
}

/** The query string of the same filters on another page. */
export function filtersQuery(f: TxFilters, page: number): string {
  const params = new URLSearchParams(filtersParams(f));
  params.set('page', String(page));
  return `?${params}`;
}

/** Each filter given, by name: the hidden fields of a form that keeps them (saving a view). */
export const givenFilters = (f: TxFilters) => FIELDS.flatMap((name) => (f[name] === undefined ? [] : [[name, f[name]] as const]));
