import type { SelectQueryBuilder } from 'kysely';

export interface Page {
  page: number;
  page_size: number;
}

/**
 * How many rows the filters match, given the page read first: a page that is not full
 * ends the list, so only a full page (or an empty one past the first) needs `count` read.
 * Most lists a merchant's code reads (a transaction's sales, a filter by order id) fit on
 * one page and cost one query.
 */
export async function countOf(page: Page, shown: number, count: () => Promise<number | string>): Promise<number> {
  if (shown > 0 && shown < page.page_size) return (page.page - 1) * page.page_size + shown;
  if (shown === 0 && page.page === 1) return 0;
  return Number(await count());
}

/**
 * `query`'s rows of `page`: its LIMIT, and an OFFSET only past the first page. PostgreSQL
 * prices a prepared statement's generic plan with an OFFSET parameter as skipping an unknown
 * share of the rows, finds it dearer than a plan for the values given, and so plans the
 * statement anew on each run (the sale list on 2,881 of its 4,600 runs in the payment bench,
 * 0.3–0.8 ms each, more than it takes to answer); without one it keeps the generic plan
 * after five runs (docs/performance-changelog.md). Most lists read are first pages.
 */
export function pageOf<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, page: Page): SelectQueryBuilder<DB, TB, O> {
  const offset = (page.page - 1) * page.page_size;
  return query.limit(page.page_size).$if(offset > 0, (q) => q.offset(offset));
}

/**
 * Count of the filtered rows and one page of them, newest first: by id (UUIDv7 ids sort by
 * time), or by a column that numbers the rows when ids made in one millisecond must keep
 * their order too.
 */
export async function countAndPage<Row>(
  // The builder's table types vary by caller.
  query: SelectQueryBuilder<any, any, any>,
  page: Page,
  newestFirstBy = 'id',
): Promise<{ count: number; rows: Row[] }> {
  const rows = await pageOf(query.selectAll().orderBy(newestFirstBy, 'desc'), page).execute();
  const count = await countOf(page, rows.length, async () => (await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { count, rows: rows as Row[] };
}
