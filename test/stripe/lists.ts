import { type Books, expand } from './books';
import { invalid, invalidParams, noSuch } from './errors';
import { list, type StripeObject } from './objects';
import type { Params } from './params';

// Lists (`{object: 'list', data, has_more, url}`, newest first, `limit` 1–100, default 10,
// `starting_after` by id, `created` (and a payout's `arrival_date`) an integer or a range) and the search
// of PaymentIntents. Search reads an index that lags: an object appears in it only
// `searchLagSeconds` after it was made (Stripe documents under a minute, longer during
// incidents), which is why the connector never believes a search that finds nothing.

type Range = number | { gt?: number; gte?: number; lt?: number; lte?: number };

function inRange(created: number, range: Range | undefined): boolean {
  if (range === undefined) return true;
  if (typeof range === 'number') return created === range;
  return (range.gt === undefined || created > range.gt) && (range.gte === undefined || created >= range.gte) && (range.lt === undefined || created < range.lt) && (range.lte === undefined || created <= range.lte);
}

/** A page of `objects` per Stripe's list parameters; `filters` are exact matches on fields. */
export function listPage(books: Books, objects: Iterable<StripeObject>, url: string, params: Params, filters: string[]): StripeObject {
  const limit = (params.limit as number | undefined) ?? 10;
  if (limit < 1 || limit > 100) throw invalidParams(null, 'Invalid integer: limit must be between 1 and 100', 'limit');
  // Newest first; objects made in the same second keep the order they were made in, reversed.
  let all = [...objects].reverse().sort((a, b) => b.created - a.created);
  const arrival = params.arrival_date as Range | undefined;
  all = all.filter((o) => inRange(o.created, params.created as Range | undefined) && (arrival === undefined || inRange(o.arrival_date, arrival)) && filters.every((f) => params[f] === undefined || o[f] === params[f]));
  const after = params.starting_after as string | undefined;
  if (after) {
    const at = all.findIndex((o) => o.id === after);
    if (at < 0) throw noSuch('object', after, 'starting_after');
    all = all.slice(at + 1);
  }
  return expand(books, list(all.slice(0, limit), url, all.length > limit), params.expand as string[]);
}

/** `metadata['key']:'value'` and `status:'value'` clauses joined by AND: what the connector asks. */
function matcher(query: string): (pi: StripeObject) => boolean {
  const clauses = query.split(/\s+AND\s+/).map((clause) => {
    const match = /^(?:metadata\[['"]([^'"]+)['"]\]|(status|currency|customer)):['"]([^'"]*)['"]$/.exec(clause.trim());
    if (!match) throw invalid(null, `Invalid query: ${clause}`, 'query');
    const [, key, field, value] = match;
    return (pi: StripeObject) => (key ? pi.metadata?.[key] === value : pi[field!] === value);
  });
  return (pi) => clauses.every((c) => c(pi));
}

export function searchPaymentIntents(books: Books, params: Params): StripeObject {
  const matches = matcher(params.query as string);
  const limit = (params.limit as number | undefined) ?? 10;
  const found = [...books.paymentIntents.values()].filter((pi) => books.now() - pi.created >= books.searchLagSeconds && matches(pi)).sort((a, b) => b.created - a.created);
  const result = { object: 'search_result', data: found.slice(0, limit), has_more: found.length > limit, next_page: null, url: '/v1/payment_intents/search' };
  return expand(books, result, params.expand as string[]);
}
