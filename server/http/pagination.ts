import type { Request } from 'express';
import { z } from 'zod';

/** A positive decimal integer as written in a query string: no "1e3", "0x10" or " 2". */
const queryInt = (min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^[0-9]{1,7}$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .default(fallback);

export const pageQuery = z.object({
  page: queryInt(1, 1_000_000, 1).describe('Page number, from 1; default 1'),
  page_size: queryInt(1, 100, 20).describe('Objects per page, 1 to 100; default 20'),
});
export type PageQuery = z.infer<typeof pageQuery>;

export function pageEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int().min(0).describe('How many objects match, on all pages'),
    items_per_page: z.number().int().min(1).max(100).describe('The page size used (`page_size`)'),
    next: z.url().nullable().describe('Absolute URL of the next page, with the same filters; null on the last page'),
    previous: z.url().nullable().describe('Absolute URL of the previous page, with the same filters; null on the first page'),
    results: z.array(item).describe('The objects of this page, newest first'),
  });
}

/** The spec's envelope, with absolute next/previous links that keep the other filters. */
export function pageEnvelope<T>(
  req: Request,
  baseUrl: string,
  page: PageQuery,
  count: number,
  results: T[],
) {
  const link = (n: number) => {
    const url = new URL(req.originalUrl, baseUrl);
    url.searchParams.set('page', String(n));
    url.searchParams.set('page_size', String(page.page_size));
    return url.toString();
  };
  const last = Math.max(1, Math.ceil(count / page.page_size));
  return {
    count,
    items_per_page: page.page_size,
    next: page.page < last ? link(page.page + 1) : null,
    previous: page.page > 1 ? link(Math.min(page.page - 1, last)) : null,
    results,
  };
}

/**
 * A list route's answer: the query split into its page and its filters, that page read
 * with them, its rows presented in the envelope.
 */
export async function listPage<Q extends PageQuery, R, T>(
  ctx: { query: Q; req: Request; baseUrl: string },
  read: (filters: Omit<Q, keyof PageQuery>, page: PageQuery) => Promise<{ count: number; rows: R[] }>,
  present: (row: R) => T,
) {
  const { page, page_size, ...filters } = ctx.query;
  const { count, rows } = await read(filters, { page, page_size });
  return pageEnvelope(ctx.req, ctx.baseUrl, { page, page_size }, count, rows.map(present));
}
