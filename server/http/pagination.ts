import type { Request } from 'express';
import { z } from 'zod';

export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
});
export type PageQuery = z.infer<typeof pageQuery>;

export function pageEnvelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int(),
    items_per_page: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
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
