import { z } from 'zod';
import { addDays, dayStart } from '../domain/time-zone';
import type { ApiRequestFilters } from '../store/api-requests';
import { parseQueryFields, single } from './query-fields';
import { day, typed } from './transaction-filters';

// The request log's filters as the query string carries them (a GET form, so they work
// without script): a status class or code, the method, text of the path, a request id and
// a range of days of the shop's time zone. Each is parsed on its own: a nonsense value is
// left out and named, the others still apply.

export const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

/** `4xx` (a class) or `404` (one code). */
const STATUS = /^([1-5])(?:xx|(\d\d))$/i;

const fields = {
  status: z.string().trim().regex(STATUS).toLowerCase(),
  method: z.enum(METHODS),
  path: typed(200),
  request_id: z.string().trim().toLowerCase().pipe(z.uuid()),
  from: day,
  to: day,
};
export type RequestField = keyof typeof fields;
const FIELDS = Object.keys(fields) as RequestField[];

export type RequestFilters = { [K in RequestField]?: z.infer<(typeof fields)[K]> };

export interface ParsedRequestQuery {
  filters: RequestFilters;
  /** Given but not understood, so not applied. */
  ignored: RequestField[];
  /** The id of the last row of the page before: the page starts after it. */
  before?: string;
}

export function parseRequestQuery(query: Record<string, unknown>): ParsedRequestQuery {
  const { values: filters, ignored } = parseQueryFields(query, fields);
  const before = z.uuid().safeParse(single(query.before));
  return { filters, ignored, ...(before.success ? { before: before.data } : {}) };
}

/** The statuses a filter means, both included: `4xx` is 400–499, `404` is 404. */
function statusRange(status: string): [number, number] {
  const [, hundreds, rest] = STATUS.exec(status)!;
  const base = Number(hundreds) * 100;
  return rest === undefined ? [base, base + 99] : [base + Number(rest), base + Number(rest)];
}

/** The store's filters: the days as moments of the shop's time zone (the day after `to` excluded). */
export const storeRequestFilters = (f: RequestFilters, timeZone: string): ApiRequestFilters => ({
  status: f.status ? statusRange(f.status) : undefined,
  method: f.method,
  path: f.path,
  request_id: f.request_id,
  since: f.from && dayStart(f.from, timeZone).toISOString(),
  until: f.to && dayStart(addDays(f.to, 1), timeZone).toISOString(),
});

/** The list's address with these filters, from the row after `before` when given. */
export function requestsHref(f: RequestFilters, before?: string): string {
  const params = new URLSearchParams();
  for (const key of FIELDS) if (f[key]) params.set(key, f[key]);
  if (before) params.set('before', before);
  const s = params.toString();
  return `/dashboard/requests/${s ? `?${s}` : ''}`;
}
